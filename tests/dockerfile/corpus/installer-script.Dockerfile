# Pattern: CUDA installed by a project script that the Dockerfile only runs.
FROM ubuntu:22.04
ENV NVIDIA_VISIBLE_DEVICES=all
COPY install_cuda.sh /tmp/
RUN bash /tmp/install_cuda.sh 12.4 && rm /tmp/install_cuda.sh
