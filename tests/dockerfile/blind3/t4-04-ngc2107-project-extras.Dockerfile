# Pattern: NGC PyTorch 21.07, the checkout installed as a package with its [full] extras, sources removed afterwards.
FROM nvcr.io/nvidia/pytorch:21.07-py3
WORKDIR /usr/home
COPY . .
RUN pip install -U pip && pip install .[full] && rm -rf ./*
