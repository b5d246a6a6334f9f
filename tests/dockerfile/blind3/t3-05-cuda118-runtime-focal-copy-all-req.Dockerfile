# Pattern: CUDA 11.8 runtime on focal, apt's Python 3.8 linked as python, the whole context copied, requirements.
FROM nvidia/cuda:11.8.0-runtime-ubuntu20.04
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y python3 python3-pip git curl && \
    ln -s /usr/bin/python3 /usr/bin/python && pip install --upgrade pip && \
    rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN pip install -r requirements.txt
CMD ["tail", "-f", "/dev/null"]
