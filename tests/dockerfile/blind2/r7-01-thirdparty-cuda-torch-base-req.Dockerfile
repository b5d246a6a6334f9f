# Pattern: a vendor base named for CUDA 11.7.1 and torch 1.13.1, the context added, requirements installed.
FROM someorg/cuda-torch:11.7.1-cudnn8-devel-1.13.1-ubuntu22.04
ADD . .
RUN pip3 install -r requirements.txt --no-cache-dir
CMD ["python3", "main.py"]
