# Pattern: CUDA 12.4.1 runtime, requirements first, then unpinned torch force-reinstalled from the cu124 index (its newest, 2.6.0).
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
RUN apt-get update && apt-get install -y python3 python3-pip && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN pip3 install --no-cache-dir --upgrade pip && \
    pip3 install --no-cache-dir -r requirements.txt && \
    pip3 install --no-cache-dir --force-reinstall --index-url https://download.pytorch.org/whl/cu124 torch
COPY . .
