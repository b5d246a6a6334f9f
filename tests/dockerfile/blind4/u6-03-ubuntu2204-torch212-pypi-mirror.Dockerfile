# Pattern: plain ubuntu:22.04, apt's Python 3.10 and pip, torch 2.1.2 (PyPI's default CUDA 12.1 wheel) from a PyPI mirror, a build toolchain for a kernel project; no CUDA base image.
FROM ubuntu:22.04
COPY . /Flash-attention/
RUN apt-get update && apt-get install -y git python3 python3-pip gcc g++ make && rm -rf /var/lib/apt/lists/*
WORKDIR /Flash-attention
RUN pip3 install -i https://pypi.tuna.tsinghua.edu.cn/simple numpy==1.23.5
RUN pip3 install -i https://pypi.tuna.tsinghua.edu.cn/simple torch==2.1.2
RUN pip3 install -i https://pypi.tuna.tsinghua.edu.cn/simple tiktoken
RUN apt-get update && apt-get install -y ninja-build
