# Pattern: a subdirectory of the context copied as the app, its requirements installed.
FROM python:3.11-slim
WORKDIR /app
COPY ./pytorch/. /app/
RUN pip install --no-cache-dir --upgrade -r requirements.txt
