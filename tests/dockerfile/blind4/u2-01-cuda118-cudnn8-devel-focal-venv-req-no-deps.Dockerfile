# Pattern: CUDA 11.8 cuDNN 8 devel on focal, the whole checkout copied first, apt's Python 3.8 in a venv, requirements installed with --no-deps inside it.
FROM nvidia/cuda:11.8.0-cudnn8-devel-ubuntu20.04
WORKDIR /app
COPY . .
ENV DEBIAN_FRONTEND=noninteractive
RUN apt update && apt install -y --no-install-recommends python3 python3-venv python3-dev
RUN python3 -m venv .venv
RUN . .venv/bin/activate; pip install -U pip; pip install --no-deps -r requirements.txt
