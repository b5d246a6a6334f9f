# Pattern: python:3.12-slim dev image, uv fetched by its install script (unused afterwards), CPU torch/vision/audio through pip from the CPU index; nothing else.
FROM python:3.12-slim
RUN apt-get update && apt-get install -y git curl build-essential && rm -rf /var/lib/apt/lists/*
RUN curl -LsSf https://astral.sh/uv/install.sh | sh
ENV PATH="/root/.cargo/bin:${PATH}"
WORKDIR /workspaces
SHELL ["/bin/bash", "-c"]
RUN pip install torch torchvision torchaudio --index-url https://download.pytorch.org/whl/cpu
