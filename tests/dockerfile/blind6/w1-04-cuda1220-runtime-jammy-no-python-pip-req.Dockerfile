# Pattern: nvidia/cuda:12.2.0-runtime-ubuntu22.04 with no Python installed, `pip install -r requirements.txt` straight away
FROM nvidia/cuda:12.2.0-runtime-ubuntu22.04
WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir -r requirements.txt
CMD ["python", "main.py"]
