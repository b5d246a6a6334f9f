# Pattern: a third-party Python 3.10 + CUDA 12.1.1 base image, NVIDIA's container toolkit apt-installed inside the image, torch 2.3.0 stack from the cu121 index, then requirements.
FROM aidockorg/python-cuda:3.10-v2-cuda-12.1.1-base-22.04
RUN apt-get update && apt-get install -y curl gnupg && \
    curl -fsSL https://nvidia.github.io/libnvidia-container/gpgkey | gpg --dearmor -o /usr/share/keyrings/nvct.gpg && \
    echo 'deb [signed-by=/usr/share/keyrings/nvct.gpg] https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /' > /etc/apt/sources.list.d/nvct.list && \
    apt-get update && apt-get install -y nvidia-container-toolkit
WORKDIR /work
COPY requirements.txt ./
RUN pip install torch==2.3.0 torchvision==0.18.0 torchaudio==2.3.0 --index-url https://download.pytorch.org/whl/cu121
RUN pip install -r requirements.txt
