# Pattern: pytorch/pytorch 1.11.0 CUDA 11.3 devel, conda rolled back to revision 1, python 3.8, unpinned conda pytorch with cudatoolkit 11.3, then requirements.
FROM pytorch/pytorch:1.11.0-cuda11.3-cudnn8-devel
ENV LC_ALL=C.UTF-8 LANG=C.UTF-8
WORKDIR /workspace
RUN apt-key adv --fetch-keys https://developer.download.nvidia.com/compute/cuda/repos/ubuntu1804/x86_64/3bf863cc.pub
RUN apt-get update && apt-get -y upgrade && apt-get -y install git ffmpeg libsm6 libxext6
RUN conda install --rev 1
RUN conda install python=3.8
RUN conda install ipykernel ipywidgets pytorch torchvision cudatoolkit=11.3 -c pytorch
COPY ./requirements.txt ./
RUN pip install -r requirements.txt
