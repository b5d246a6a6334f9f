# Pattern: CUDA 11.8 cuDNN 8 devel on jammy, deadsnakes Python 3.7 added beside the system python3, then pycuda (built from source) and nvidia-tensorrt with NVIDIA's index as an extra index; no torch.
FROM nvidia/cuda:11.8.0-cudnn8-devel-ubuntu22.04
RUN apt-get update && apt install software-properties-common curl -y
RUN add-apt-repository ppa:deadsnakes/ppa -y
RUN apt install python3.7 python3.7-dev build-essential python3-pip -y
RUN python3 -m pip install -U pip setuptools
RUN python3 -m pip install -U pycuda
RUN python3 -m pip install nvidia-tensorrt --extra-index-url https://pypi.nvidia.com
RUN python3 -m pip install -U numpy
CMD ["/bin/bash"]
