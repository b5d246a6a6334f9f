# Pattern: python:3.11-slim with uv copied from its image, torch and numpy installed into the system Python from the CPU index alone; nothing else.
FROM python:3.11-slim
COPY --from=ghcr.io/astral-sh/uv:latest /uv /uvx /bin/
WORKDIR /app
RUN uv pip install --system torch numpy --index-url https://download.pytorch.org/whl/cpu
