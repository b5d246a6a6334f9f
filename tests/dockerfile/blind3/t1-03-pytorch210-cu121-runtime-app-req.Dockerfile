# Pattern: pytorch/pytorch 2.1.0 CUDA 12.1 runtime, requirements copied under /app and installed.
FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime
COPY requirements.txt /app/requirements.txt
RUN pip install -r /app/requirements.txt
