# Pattern: pytorch/pytorch tag assembled from ARGs (torch, CUDA and cuDNN versions).
ARG PYTORCH=2.1.0
ARG CUDA=12.1
ARG CUDNN=8
FROM pytorch/pytorch:${PYTORCH}-cuda${CUDA}-cudnn${CUDNN}-devel
RUN rm -rf /tmp/* && pip install --no-cache-dir einops
