# Pattern: pytorch/pytorch 2.4.0 CUDA 12.4 runtime, whole context copied, uv from pip installing pyproject.toml's dependencies into the system.
FROM pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime
WORKDIR /workspace
COPY . .
RUN pip install uv
RUN uv pip install -r pyproject.toml --system
CMD ["tail", "-f", "/dev/null"]
