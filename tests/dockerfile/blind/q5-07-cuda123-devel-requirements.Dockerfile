# Pattern: CUDA 12.3 devel image with apt's python and a requirements file at the root.
FROM nvidia/cuda:12.3.2-devel-ubuntu22.04
RUN apt update && apt install -y python3 python3-pip
ADD requirements.txt /
RUN pip install --no-cache -r /requirements.txt
