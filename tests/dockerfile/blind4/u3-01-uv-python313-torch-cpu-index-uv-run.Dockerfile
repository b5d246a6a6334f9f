# Pattern: astral's uv image (Python 3.13, bookworm-slim), the checkout copied in, CPU torch/torchvision through pip, and `uv run` as the command (which locks and syncs the unseen project before it runs).
FROM ghcr.io/astral-sh/uv:python3.13-bookworm-slim
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir torch torchvision --index-url https://download.pytorch.org/whl/cpu
EXPOSE 8000
CMD ["uv", "run", "python", "-m", "api"]
