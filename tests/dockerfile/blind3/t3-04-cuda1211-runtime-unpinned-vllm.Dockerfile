# Pattern: CUDA 12.1.1 runtime on jammy, apt's Python 3.10 under apt cache mounts, pip upgraded, unpinned vllm from PyPI.
FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04
ENV PORT 8000
RUN --mount=type=cache,target=/var/cache/apt --mount=type=cache,target=/var/lib/apt \
    apt-get update && apt-get -y --no-install-recommends install python3 python3-pip && \
    rm -rf /var/lib/apt/lists/*
RUN python3 -m pip install --no-cache-dir --upgrade pip wheel
RUN python3 -m pip install --no-cache-dir vllm
COPY entrypoint.sh /usr/local/bin/
CMD ["entrypoint.sh"]
