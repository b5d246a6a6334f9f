# Pattern: pytorch/pytorch 2.0.1 CUDA 11.7 runtime with a docker-specific requirements file.
FROM pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime
COPY requirements-docker.txt ./requirements-docker.txt
RUN pip install --upgrade pip
RUN pip install -r requirements-docker.txt
