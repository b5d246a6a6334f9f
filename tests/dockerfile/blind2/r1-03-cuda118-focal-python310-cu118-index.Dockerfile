# Pattern: CUDA 11.8 devel on focal asking apt for python3.10 (focal has none), then unpinned torch from the cu118 index and requirements.
FROM nvidia/cuda:11.8.0-devel-ubuntu20.04
WORKDIR /srv
RUN apt-get update
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get install -y --no-install-recommends python3.10 python3-pip
RUN pip3 install --upgrade pip
RUN pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu118
COPY requirements.txt requirements.txt
RUN pip3 install -r requirements.txt
