# Pattern: CUDA 11.8 runtime on jammy, the latest Miniconda first on PATH, unpinned torch/vision/audio from the cu118 index through conda's pip3, then requirements.
FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04
ENV TZ=Asia/Tokyo
RUN apt-get update && apt-get install -y git git-lfs curl
RUN curl https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh > /tmp/mc.sh && \
    bash /tmp/mc.sh -b -p /opt/miniconda3 && rm /tmp/mc.sh
ENV PATH /opt/miniconda3/bin:$PATH
RUN conda init bash
RUN pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu118
COPY requirements.txt .
RUN pip3 install -r requirements.txt && rm requirements.txt
