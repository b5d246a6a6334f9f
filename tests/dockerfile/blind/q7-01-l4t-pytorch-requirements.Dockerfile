# Pattern: a Jetson L4T PyTorch base (JetPack 4.5), nvcc checked, requirements installed.
FROM nvcr.io/nvidia/l4t-pytorch:r32.5.0-pth1.7-py3
RUN nvcc --version
RUN pip3 install -U pip setuptools wheel && pip3 install -r requirements.txt && rm -rf ~/.cache/pip
