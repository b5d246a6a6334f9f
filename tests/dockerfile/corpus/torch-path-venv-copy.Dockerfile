# Pattern: a venv made the default through ENV PATH in the builder, plain
# `pip install`, then the venv copied by stage index.
FROM python:3.10 AS deps
ENV PATH=/venv/bin:$PATH
RUN python -m venv /venv && pip install torch==2.1.0 --extra-index-url https://download.pytorch.org/whl/cu118
FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04
COPY --from=0 /venv /venv
ENV PATH=/venv/bin:$PATH
