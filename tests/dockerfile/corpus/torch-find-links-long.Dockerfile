# Pattern: the same with --find-links= and the requirement after it.
FROM nvidia/cuda:11.3.1-cudnn8-runtime-ubuntu20.04
RUN apt-get update && apt-get install -y python3-pip
RUN pip3 install --find-links=https://download.pytorch.org/whl/cu113/torch_stable.html torch==1.12.1
