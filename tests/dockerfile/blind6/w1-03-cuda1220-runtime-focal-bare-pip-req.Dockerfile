# Pattern: nvidia/cuda:12.2.0-runtime-ubuntu20.04, focal python3-pip, then bare `pip install -r requirements.txt`
FROM nvidia/cuda:12.2.0-runtime-ubuntu20.04
WORKDIR /app
RUN apt-get update && apt-get install -y python3 python3-pip && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
CMD ["python3", "main.py"]
