# Pattern: uv pip with the PyTorch extra index (uv searches it first).
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
COPY --from=ghcr.io/astral-sh/uv:0.4.20 /uv /bin/uv
RUN uv pip install --system torch==2.4.0 --extra-index-url https://download.pytorch.org/whl/cu124
