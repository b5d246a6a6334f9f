# Pattern: nvidia/cuda 11.7.1 cuDNN 8 devel on focal, deadsnakes PPA but focal python3, apt "pip", unpinned torch (cache mount), then pip install . of the project (the public file opens with a `# syntax = docker/dockerfile:experimental` directive, dropped here)
FROM nvidia/cuda:11.7.1-cudnn8-devel-ubuntu20.04
ENV DEBIAN_FRONTEND=noninteractive
RUN apt -y update && \
    apt install -y build-essential software-properties-common && \
    add-apt-repository -y ppa:deadsnakes/ppa && \
    apt install -y python3 pip python3-dev
RUN ln -sfn /usr/bin/python3 /usr/bin/python && ln -sfn /usr/bin/pip3 /usr/bin/pip
RUN --mount=type=cache,target=/root/.cache/pip pip install torch
WORKDIR /mnt/lib
COPY . .
RUN pip install .
