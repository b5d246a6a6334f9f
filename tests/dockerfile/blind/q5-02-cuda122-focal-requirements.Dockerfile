# Pattern: CUDA 12.2 runtime on Ubuntu 20.04 with a newer Python from apt, requirements.
FROM nvidia/cuda:12.2.2-runtime-ubuntu20.04
RUN apt-get update -y && DEBIAN_FRONTEND=noninteractive apt-get install -y python3.9 python3-pip curl
COPY requirements.txt .
RUN pip3 install -r requirements.txt
