# Pattern: a CUDA torch wheel on a plain ubuntu base with the NVIDIA variables
# set by hand (the wheel brings its own CUDA runtime).
FROM ubuntu:22.04
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
RUN apt-get update && apt-get install -y python3-pip
RUN pip3 install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu124
