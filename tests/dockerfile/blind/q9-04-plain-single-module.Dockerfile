# Pattern: one module and its requirements, uvicorn on a custom port.
FROM python:3.12-slim
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY app.py .
CMD ["uvicorn", "app:api", "--host", "0.0.0.0", "--port", "8200"]
