# Pattern: CUDA 12.3.0 base, apt python, torch pinned through an ARG (2.2.0 from PyPI), then the project with extras including vllm.
FROM nvidia/cuda:12.3.0-base-ubuntu22.04 AS build
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install python3 python3-pip -y
RUN ln -s /usr/bin/python3 /usr/bin/python
ARG TORCH="2.2.0"
RUN python -m pip install --no-cache-dir --upgrade pip && python -m pip install --no-cache-dir torch==${TORCH}
WORKDIR /
COPY . .
RUN pip install -e ".[hf-transformers,llama-cpp,vllm]"
CMD ["app"]
