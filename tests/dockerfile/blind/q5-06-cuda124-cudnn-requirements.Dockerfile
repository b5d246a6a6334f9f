# Pattern: the cudnn-runtime tag without a cuDNN major (12.4.1), requirements.
FROM nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04
RUN apt-get update && apt-get install -y python3 python3-pip && rm -rf /var/lib/apt/lists/*
COPY . /app/
WORKDIR /app
RUN pip install -r requirements.txt
