# Pattern: patch-less CUDA 11.1 cuDNN 8 runtime tag on bionic, NVIDIA repository key refreshed, wget and make from apt, Miniconda py37 with conda init; no framework installed.
FROM nvidia/cuda:11.1-cudnn8-runtime-ubuntu18.04
RUN apt-key adv --fetch-keys https://developer.download.nvidia.com/compute/cuda/repos/ubuntu1804/x86_64/3bf863cc.pub \
    && apt update && apt install -y wget make
RUN wget https://repo.anaconda.com/miniconda/Miniconda3-py37_4.12.0-Linux-x86_64.sh -O ~/miniconda.sh \
    && bash ~/miniconda.sh -b -p $HOME/miniconda && /root/miniconda/condabin/conda init
ENV PATH=/root/miniconda/condabin:$PATH
ENV PYTHONPATH=.:$PYTHONPATH
