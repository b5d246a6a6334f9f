# Pattern: an old CUDA 11.0 runtime base kept for a legacy model.
FROM nvidia/cuda:11.0.3-runtime-ubuntu20.04
RUN apt-get update && apt-get install -y python3
