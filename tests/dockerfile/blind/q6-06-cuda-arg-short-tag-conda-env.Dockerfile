# Pattern: the CUDA release in an ARG used in a short tag (X.Y-base), a conda env from environment.yml.
ARG CUDA_VERSION=10.2
FROM nvidia/cuda:$CUDA_VERSION-base
ARG CUDA_VERSION
ENV CUDA_VERSION=$CUDA_VERSION
ENV PATH="/root/miniconda3/bin:${PATH}"
RUN apt-get update && apt-get install -y wget && rm -rf /var/lib/apt/lists/*
RUN wget https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh \
    && bash Miniconda3-latest-Linux-x86_64.sh -b && rm -f Miniconda3-latest-Linux-x86_64.sh
COPY ./environment.yml /tmp/environment.yml
RUN conda env create --name pytorch-cuda-env -f /tmp/environment.yml
