# Pattern: pytorch/pytorch 2.1.0 CUDA 12.1 runtime, torch asked again from the cu121 index (already satisfied), then requirements.
FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime
RUN pip install --no-cache-dir torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu121
COPY requirements.txt .
RUN pip install -r requirements.txt
