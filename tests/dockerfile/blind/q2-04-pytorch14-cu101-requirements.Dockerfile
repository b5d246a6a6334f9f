# Pattern: a short pytorch/pytorch tag (major.minor, CUDA 10.1) and a requirements file.
FROM pytorch/pytorch:1.4-cuda10.1-cudnn7-runtime
WORKDIR /
COPY requirements.txt .
RUN pip install -r requirements.txt
