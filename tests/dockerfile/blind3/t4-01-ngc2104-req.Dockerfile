# Pattern: NGC PyTorch 21.04 (a comment calls it TensorFlow), requirements with pip upgraded.
FROM nvcr.io/nvidia/pytorch:21.04-py3
COPY requirements.txt ./
RUN pip install --upgrade pip && pip install --no-cache-dir -r requirements.txt
