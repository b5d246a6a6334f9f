# Pattern: pytorch/pytorch 2.1.0 CUDA 11.8 devel, then vLLM cloned from its default branch and installed editable.
FROM pytorch/pytorch:2.1.0-cuda11.8-cudnn8-devel
RUN apt-get update && apt-get install -y git cmake curl wget
RUN git clone https://github.com/vllm-project/vllm.git && cd vllm && pip install -e .
WORKDIR /ws
