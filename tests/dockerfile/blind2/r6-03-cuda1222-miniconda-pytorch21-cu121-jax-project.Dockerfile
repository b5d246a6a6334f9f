# Pattern: CUDA 12.2.2 cuDNN devel, Miniconda by its script, pytorch 2.1.* with pytorch-cuda=12.1 by conda, jax[cuda11_pip], then the project editable.
FROM nvidia/cuda:12.2.2-cudnn8-devel-ubuntu22.04
ENV MINICONDA_VERSION Miniconda3-latest-Linux-x86_64.sh
RUN apt-get update && apt-get install -y curl git && \
    curl -O https://repo.anaconda.com/miniconda/$MINICONDA_VERSION && \
    /bin/bash $MINICONDA_VERSION -b -p /opt/conda && rm $MINICONDA_VERSION && apt-get clean
ENV PATH /opt/conda/bin:$PATH
RUN conda install -y python=3.10.3
RUN conda install -c conda-forge pip
RUN conda install -y pytorch=2.1.* torchvision torchaudio pytorch-cuda=12.1 -c pytorch -c nvidia
RUN pip install --upgrade "jax[cuda11_pip]" -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html
WORKDIR /app
COPY setup.py .
COPY pyproject.toml .
COPY run.sh .
RUN pip install --upgrade pip && pip install --no-cache-dir -e .
ENTRYPOINT ["./run.sh"]
