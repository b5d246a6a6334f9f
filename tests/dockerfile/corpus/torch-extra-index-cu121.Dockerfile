# Pattern: torch with a +cuXXX local version and the PyTorch extra index.
FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04
RUN apt-get update && apt-get install -y python3-pip
RUN pip3 install torch==2.2.2+cu121 --extra-index-url https://download.pytorch.org/whl/cu121
