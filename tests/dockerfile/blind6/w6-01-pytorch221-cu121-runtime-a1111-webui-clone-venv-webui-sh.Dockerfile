# Pattern: pytorch/pytorch 2.2.1 CUDA 12.1 runtime, AUTOMATIC1111 stable-diffusion-webui cloned at HEAD, an empty venv, non-root user, CMD ./webui.sh (which installs its own torch at start)
FROM pytorch/pytorch:2.2.1-cuda12.1-cudnn8-runtime
RUN apt update && apt install -y git
RUN git clone https://github.com/AUTOMATIC1111/stable-diffusion-webui && cd stable-diffusion-webui
RUN python3 -m venv venv
RUN useradd -ms /bin/bash webui
USER webui
WORKDIR /home/webui/stable-diffusion-webui
CMD ["./webui.sh"]
EXPOSE 8000
