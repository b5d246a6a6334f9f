# Pattern: the CUDA base image assembled from ARGs before the first FROM
# (CUDA version and OS as build arguments).
ARG CUDA_VERSION=12.4.1
ARG OS=ubuntu22.04
FROM nvidia/cuda:${CUDA_VERSION}-runtime-${OS}
RUN apt-get update && apt-get install -y --no-install-recommends python3 && rm -rf /var/lib/apt/lists/*
