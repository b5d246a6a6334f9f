# Pattern: the CPU wheel index on a plain python base (CPU inference images).
FROM python:3.11-slim
RUN pip install --no-cache-dir torch==2.3.1 --index-url https://download.pytorch.org/whl/cpu
COPY . /app
