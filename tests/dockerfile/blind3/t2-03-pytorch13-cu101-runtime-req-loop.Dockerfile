# Pattern: pytorch/pytorch 1.3 CUDA 10.1 runtime, each requirement installed by its own pip call in a shell loop.
FROM pytorch/pytorch:1.3-cuda10.1-cudnn7-runtime
COPY requirements.txt .
RUN while read req; do pip install $req; done < requirements.txt
