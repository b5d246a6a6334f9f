# Pattern: a third-party UBI9 CUDA Python devel image, unpinned torch and flash-attn, a CUDA extra, then vllm==0.7.2 (which pins torch 2.5.1).
FROM quay.io/someone/ubi9-cuda-py:latest-devel
RUN pip install --upgrade pip wheel setuptools
RUN pip install torch
RUN pip install flash-attn
RUN pip install 'toolkit[cuda]' -C cmake.args="-DLLAMA_CUDA=on" -C cmake.args="-DLLAMA_NATIVE=off"
RUN pip install vllm==0.7.2
