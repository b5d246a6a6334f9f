# Pattern: plain ubuntu 22.04, python from deadsnakes and get-pip (an apt-get install without -y), unpinned torch, then requirements.
FROM ubuntu:22.04
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y curl gnupg wget zip
RUN apt-get install software-properties-common \
    && add-apt-repository ppa:deadsnakes/ppa \
    && apt install python3.10 \
    && curl https://bootstrap.pypa.io/get-pip.py -o /tmp/get-pip.py && python3 /tmp/get-pip.py
RUN pip3 install --default-timeout=300 --no-cache-dir torch
COPY requirements.txt /tmp
RUN pip3 install --default-timeout=300 -r /tmp/requirements.txt && rm -f /tmp/requirements.txt
