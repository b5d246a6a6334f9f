# Pattern: ${V:+"..."} chooses a CUDA base when a version ARG is set and a
# CPU base otherwise, with quotes inside the word (BuildKit strips them).
ARG CUDA_VERSION=12.1.1
ARG BASE_IMAGE=${CUDA_VERSION:+"nvidia/cuda:${CUDA_VERSION}-cudnn8-devel-ubuntu22.04"}
ARG BASE_IMAGE=${BASE_IMAGE:-"ubuntu:22.04"}
FROM ${BASE_IMAGE}
RUN apt-get update && apt-get install -y python3-pip
