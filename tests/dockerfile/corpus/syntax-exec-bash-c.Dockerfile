# Pattern: exec-form RUN ["bash", "-c", ...] with a CUDA variant ARG in the index URL.
FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04
ARG CU=cu118
RUN ["bash", "-c", "apt-get update && apt-get install -y python3-pip && pip3 install torch==2.1.2 --index-url https://download.pytorch.org/whl/${CU}"]
