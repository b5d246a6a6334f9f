# Pattern: pytorch/pytorch 2.4.0 CUDA 12.4 runtime, requirements, the checkout, NVIDIA_VISIBLE_DEVICES set again by hand.
FROM pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime
RUN apt-get update
WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
ENV NVIDIA_VISIBLE_DEVICES=all
