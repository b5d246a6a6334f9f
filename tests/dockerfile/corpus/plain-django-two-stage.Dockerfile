# Pattern: Django app: a builder stage makes a virtualenv with pip, the slim
# runtime stage copies it and runs gunicorn.
FROM python:3.11 AS builder
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt .
RUN pip install --no-cache-dir django==5.0.6 gunicorn==22.0.0
FROM python:3.11-slim
COPY --from=builder /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /app
COPY . .
CMD ["gunicorn", "mysite.wsgi:application", "--bind", "0.0.0.0:8000"]
