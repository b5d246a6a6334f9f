# Pattern: CUDA 12.2.0 devel on jammy, apt python, requirements, then flash-attn built without isolation.
FROM nvidia/cuda:12.2.0-devel-ubuntu22.04
ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /workspace
RUN apt-get update -y && apt-get install -y curl git python3.11 python3-pip && rm -rf /var/lib/apt/lists/*
RUN pip install --upgrade pip
RUN pip install gdown
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
RUN MAX_JOBS=16 pip install flash-attn --no-build-isolation
