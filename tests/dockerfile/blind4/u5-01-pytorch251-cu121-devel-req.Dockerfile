# Pattern: pytorch/pytorch 2.5.1 CUDA 12.1 cuDNN 9 devel with an unseen requirements file, nothing else.
FROM pytorch/pytorch:2.5.1-cuda12.1-cudnn9-devel
WORKDIR /code
COPY requirements.txt requirements.txt
RUN pip install -r requirements.txt
