# Pattern: CUDA 12.1.1 cuDNN 8 runtime, apt's Python, requirements first, then unpinned torch/vision/audio from the cu121 index (no -U).
FROM nvidia/cuda:12.1.1-cudnn8-runtime-ubuntu22.04
WORKDIR /app
COPY requirements.txt .
RUN apt-get update && apt-get install -y python3 python3-pip && \
    pip3 install -r requirements.txt && \
    pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu121
