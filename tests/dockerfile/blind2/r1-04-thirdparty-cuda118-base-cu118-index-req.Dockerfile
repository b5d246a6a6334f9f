# Pattern: a vendor's CUDA 11.8 runner image from its own registry, unpinned torch from the cu118 index as a non-root user, then requirements.
FROM hub.vendor.example/runner-images/gpu:python3.10_cuda11.8_opencv
USER root
RUN apt update && apt install -y curl
USER 1000
ENV HOME=/tmp
RUN python3 -m pip install --upgrade pip
RUN pip3 install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cu118
COPY /requirements.txt .
RUN pip install -r requirements.txt
