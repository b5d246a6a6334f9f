# Pattern: CUDA 11.0 cuDNN runtime on 18.04, miniconda installed to /usr/local, conda updated.
FROM nvidia/cuda:11.0-cudnn8-runtime-ubuntu18.04
RUN apt-get update && apt-get --yes install wget && rm -rf /var/lib/apt/lists/*
RUN apt-get -qq update && apt-get -qq -y install curl bzip2 \
    && curl -sSL https://repo.continuum.io/miniconda/Miniconda3-latest-Linux-x86_64.sh -o /tmp/miniconda.sh \
    && bash /tmp/miniconda.sh -bfp /usr/local \
    && rm -rf /tmp/miniconda.sh \
    && conda install -y python \
    && conda update conda
