# Pattern: CUDA 12.4.1 cuDNN devel on focal, only python3-pip from apt, then bare `pip` upgrades itself and installs tools and torch 2.2.1 from PyPI; the checkout copied last.
FROM nvidia/cuda:12.4.1-cudnn-devel-ubuntu20.04
WORKDIR /home/
RUN set -xe && apt-get update && apt-get install python3-pip -y
RUN pip install --upgrade pip
RUN pip install tensorboard matplotlib
RUN pip install torch==2.2.1 torchvision==0.17.1 torchaudio==2.2.1
COPY ./ ./
