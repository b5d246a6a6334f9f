# Pattern: tensorflow/tensorflow:latest-gpu, requirements from /tmp, workdir only
FROM tensorflow/tensorflow:latest-gpu
COPY requirements.txt /tmp/
RUN pip install --no-cache-dir -r /tmp/requirements.txt
WORKDIR /app
