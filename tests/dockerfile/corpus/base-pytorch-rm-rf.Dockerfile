# Pattern: the official pytorch/pytorch runtime image, apt packages added and
# the lists removed with rm -rf (framework images extended by projects).
FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime
RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*
WORKDIR /workspace
