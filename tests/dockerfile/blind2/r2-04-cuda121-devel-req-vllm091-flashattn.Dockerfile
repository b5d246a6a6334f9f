# Pattern: CUDA 12.1.1 devel on jammy, requirements under a cache mount, vllm pinned through an ARG (0.9.1 pins torch 2.7.0), then flash-attn.
FROM nvidia/cuda:12.1.1-devel-ubuntu22.04
RUN apt-get update -y && apt-get install -y python3-pip git build-essential ninja-build
RUN python3 -m pip install --upgrade pip
COPY requirements.txt /requirements.txt
RUN --mount=type=cache,target=/root/.cache/pip pip install -r /requirements.txt
ARG VLLM_VERSION=0.9.1
RUN pip install vllm==${VLLM_VERSION}
RUN pip install flash-attn --no-build-isolation
COPY src /src
WORKDIR /src
CMD ["python3", "-m", "handler"]
