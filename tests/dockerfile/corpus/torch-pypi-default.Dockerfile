# Pattern: torch pinned from PyPI only (its default CUDA variant).
FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04
RUN apt-get update && apt-get install -y python3-pip
RUN pip3 install torch==2.1.0
