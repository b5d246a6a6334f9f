# Pattern: FastAPI service installed with uv from a frozen lockfile, the uv
# binary copied from its own image (uv's documented Docker integration).
FROM python:3.12-slim
COPY --from=ghcr.io/astral-sh/uv:0.4.20 /uv /uvx /bin/
WORKDIR /app
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev
COPY . .
CMD ["uv", "run", "fastapi", "run", "app/main.py", "--port", "80"]
