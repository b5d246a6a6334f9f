# Pattern: two stages on CUDA 12.9.0 cuDNN: the devel builder makes a venv under /app with deadsnakes Python 3.11, torch 2.8.0+cu129 from the cu129 index, a CUDA extension built from git, then `uv sync` of the unseen project into that venv; the runtime stage copies /app (venv included).
FROM nvidia/cuda:12.9.0-cudnn-devel-ubuntu22.04 AS builder
ARG DEBIAN_FRONTEND=noninteractive
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends software-properties-common git curl ca-certificates build-essential ninja-build cmake && rm -rf /var/lib/apt/lists/*
RUN add-apt-repository ppa:deadsnakes/ppa && apt-get update && \
    apt-get install -y --no-install-recommends python3.11 python3.11-venv python3.11-dev python3-pip && rm -rf /var/lib/apt/lists/*
RUN update-alternatives --install /usr/bin/python3 python3 /usr/bin/python3.11 1
RUN python3 -m venv /app/.venv
ENV PATH="/app/.venv/bin:/root/.local/bin:${PATH}"
RUN python -m pip install --upgrade pip setuptools wheel
RUN curl -LsSf https://astral.sh/uv/install.sh | sh
RUN python -m pip install torch==2.8.0+cu129 torchvision==0.23.0+cu129 torchaudio==2.8.0+cu129 --index-url https://download.pytorch.org/whl/cu129
ENV CUDA_HOME=/usr/local/cuda
ENV TORCH_CUDA_ARCH_LIST="8.9+PTX"
RUN python -m pip install --no-build-isolation "git+https://github.com/facebookresearch/pytorch3d.git@75ebeeaea0908c5527e7b1e305fbc7681382db47"
COPY . /app
RUN uv sync --no-dev --active

FROM nvidia/cuda:12.9.0-cudnn-runtime-ubuntu22.04 AS runtime
ARG DEBIAN_FRONTEND=noninteractive
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends software-properties-common ca-certificates git curl libgl1 libgomp1 && rm -rf /var/lib/apt/lists/*
RUN add-apt-repository ppa:deadsnakes/ppa && apt-get update && \
    apt-get install -y --no-install-recommends python3.11 python3.11-venv && rm -rf /var/lib/apt/lists/*
RUN update-alternatives --install /usr/bin/python3 python3 /usr/bin/python3.11 1
COPY --from=builder /app /app
ENV PATH="/app/.venv/bin:${PATH}"
CMD ["bash", "-lc", "/app/scripts/entrypoint.sh"]
