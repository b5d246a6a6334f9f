# Pattern: an AMD ROCm base image (the ROCm variant of a multi-vendor project).
FROM rocm/pytorch:rocm6.1_ubuntu22.04_py3.10_pytorch_2.1.2
RUN pip install --no-cache-dir transformers==4.44.0
