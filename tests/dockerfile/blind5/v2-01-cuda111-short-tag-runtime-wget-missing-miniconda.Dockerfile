# Pattern: patch-less CUDA 11.1 cuDNN 8 runtime tag on bionic, Miniconda py37 fetched with wget that the image never installed; no framework.
FROM nvidia/cuda:11.1-cudnn8-runtime-ubuntu18.04
RUN wget https://repo.anaconda.com/miniconda/Miniconda3-py37_4.12.0-Linux-x86_64.sh -O ~/miniconda.sh && bash ~/miniconda.sh -b -p $HOME/miniconda
