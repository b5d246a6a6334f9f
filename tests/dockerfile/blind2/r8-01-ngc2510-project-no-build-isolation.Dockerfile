# Pattern: NGC PyTorch 25.10 (CUDA 13.0), the project installed without build isolation against the container's torch, one package removed.
FROM nvcr.io/nvidia/pytorch:25.10-py3
WORKDIR /workspace
COPY . /workspace/
RUN pip install --no-build-isolation .
RUN pip uninstall -y torchao
