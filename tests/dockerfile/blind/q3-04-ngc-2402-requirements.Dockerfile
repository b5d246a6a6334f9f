# Pattern: NGC PyTorch 24.02 with pip upgraded and a requirements file under /tmp.
FROM nvcr.io/nvidia/pytorch:24.02-py3
COPY requirements.txt /tmp/requirements.txt
RUN pip install --upgrade pip
RUN pip install --no-cache-dir -r /tmp/requirements.txt
