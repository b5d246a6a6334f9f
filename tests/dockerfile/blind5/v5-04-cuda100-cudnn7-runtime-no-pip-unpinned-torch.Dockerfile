# Pattern: CUDA 10.0 cuDNN 7 runtime on bionic, python3.8 and build-essential from apt but no pip, then pip3 upgrade and unpinned torch.
FROM nvidia/cuda:10.0-cudnn7-runtime-ubuntu18.04
RUN apt-get update && apt-get install -y --allow-unauthenticated build-essential python3.8
RUN pip3 install --upgrade pip
RUN pip3 install -U torch numpy
