# Pattern: the CUDA runtime copied from an nvidia/cuda image into ubuntu.
FROM ubuntu:22.04
COPY --from=nvidia/cuda:12.4.1-runtime-ubuntu22.04 /usr/local/cuda /usr/local/cuda
ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64
