# Pattern: nvidia/cuda 12.1.1 cuDNN 8 devel on jammy, unpinned torch/torchvision/torchaudio with the cu121 index as an extra, ComfyUI cloned at a build-arg tag, its requirements
FROM nvidia/cuda:12.1.1-cudnn8-devel-ubuntu22.04
WORKDIR /app
RUN apt-get update && apt-get install -y git python3.10 python3-pip
RUN pip3 install torch torchvision torchaudio --extra-index-url https://download.pytorch.org/whl/cu121
ARG comfy_tag
RUN git clone https://github.com/comfyanonymous/ComfyUI.git
RUN cd /app/ComfyUI && git checkout $comfy_tag
RUN pip3 install -r /app/ComfyUI/requirements.txt
EXPOSE 8848
CMD ["python3", "-u", "/app/ComfyUI/main.py", "--listen", "0.0.0.0", "--port", "8848"]
