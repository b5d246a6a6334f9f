# Pattern: the same ${V:+"..."} choice with the CUDA version ARG empty: the
# CPU base is chosen and nothing asks for a GPU.
ARG CUDA_VERSION=
ARG BASE_IMAGE=${CUDA_VERSION:+"nvidia/cuda:${CUDA_VERSION}-cudnn8-devel-ubuntu22.04"}
ARG BASE_IMAGE=${BASE_IMAGE:-"ubuntu:22.04"}
FROM ${BASE_IMAGE}
RUN apt-get update && apt-get install -y python3-pip
