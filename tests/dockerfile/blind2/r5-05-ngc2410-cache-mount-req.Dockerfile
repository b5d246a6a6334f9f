# Pattern: NGC PyTorch 24.10 written in lower-case instructions, requirements under a cache mount.
from nvcr.io/nvidia/pytorch:24.10-py3 as base
copy requirements.txt .
run --mount=type=cache,target=/root/.cache \
    pip install -r requirements.txt
workdir /workdir
