# Pattern: pytorch/pytorch 2.2.0 CUDA 12.1 runtime, conda's cuda-toolkit 12.1.0 from the nvidia label (for nvcc), unpinned flash-attn without build isolation, then the project with its test extras.
FROM pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
RUN apt update && apt install git -y
RUN conda install nvidia/label/cuda-12.1.0::cuda-toolkit -y
RUN pip install ninja
RUN pip install flash-attn --no-build-isolation
COPY ./ /app
RUN cd /app && pip install .[tests]
WORKDIR /app
