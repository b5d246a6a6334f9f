# Pattern: pytorch/pytorch 2.6.0 CUDA 12.4 cuDNN 9 devel, requirements only (the checkout deliberately not copied), bash as the command.
FROM pytorch/pytorch:2.6.0-cuda12.4-cudnn9-devel
WORKDIR /workspace
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
CMD ["bash"]
