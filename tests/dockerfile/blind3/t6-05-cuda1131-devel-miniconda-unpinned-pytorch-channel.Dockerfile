# Pattern: CUDA 11.3.1 cuDNN 8 devel on bionic, two stages, the latest Miniconda with python 3.9.5 and unpinned pytorch from the pytorch channel (no CUDA variant named).
FROM nvidia/cuda:11.3.1-cudnn8-devel-ubuntu18.04 AS dev-base
RUN apt-get update && apt-get install -y --no-install-recommends build-essential ca-certificates curl git && \
    rm -rf /var/lib/apt/lists/*
ENV PATH /opt/conda/bin:$PATH

FROM dev-base AS conda
ENV PYTHON_VER=3.9.5
RUN curl -fsSL -o ~/miniconda.sh https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh && \
    bash ~/miniconda.sh -b -p /opt/conda && rm ~/miniconda.sh && \
    /opt/conda/bin/conda install -y python=${PYTHON_VER} pytorch cmake ninja -c pytorch && \
    /opt/conda/bin/conda clean -ya
ENV CMAKE_PREFIX_PATH="/opt/conda/lib/python3.9/site-packages/torch/share/cmake"
CMD bash
