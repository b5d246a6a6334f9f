# Pattern: a host libcuda copied into the image by name.
FROM ubuntu:22.04
ENV NVIDIA_VISIBLE_DEVICES=all
COPY libcuda.so.470.256.02 /usr/lib/x86_64-linux-gnu/
