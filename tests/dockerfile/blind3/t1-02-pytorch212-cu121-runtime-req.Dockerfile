# Pattern: pytorch/pytorch 2.1.2 CUDA 12.1 runtime with an unseen requirements file.
FROM pytorch/pytorch:2.1.2-cuda12.1-cudnn8-runtime
WORKDIR /work
COPY requirements.txt .
RUN pip install -r requirements.txt
