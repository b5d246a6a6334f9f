# Pattern: torch installed into a virtualenv in a python builder stage, the venv
# copied into a thin CUDA runtime stage (serving images with a *-base final stage).
FROM python:3.11-slim AS build
RUN python -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir torch==2.4.0 --index-url https://download.pytorch.org/whl/cu124
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
RUN apt-get update && apt-get install -y python3.11 && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
