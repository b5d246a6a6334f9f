# Pattern: CUDA 11.8 runtime on jammy with cuDNN 8.6 added and held through apt (the cudnn8-runtime recipe by hand), apt's pip, then requirements.
FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04
ENV NV_CUDNN_PACKAGE "libcudnn8=8.6.0.163-1+cuda11.8"
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y --no-install-recommends ${NV_CUDNN_PACKAGE} && \
    apt-mark hold libcudnn8 && rm -rf /var/lib/apt/lists/*
RUN apt-get update -y && apt-get install -y python3-pip
WORKDIR /app
COPY requirements.txt requirements.txt
RUN pip install -r requirements.txt
ENTRYPOINT ["bash"]
