# Pattern: /usr/local/nvidia/lib64 appended to LD_LIBRARY_PATH on ubuntu with
# the NVIDIA variables (the directory of the legacy nvidia-docker volume).
FROM ubuntu:22.04
ENV NVIDIA_VISIBLE_DEVICES=all
ENV LD_LIBRARY_PATH "$LD_LIBRARY_PATH:/usr/local/nvidia/lib64"
