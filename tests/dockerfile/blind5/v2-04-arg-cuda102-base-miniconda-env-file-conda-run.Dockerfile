# Pattern: CUDA release from an ARG (10.2) on the OS-less base tag, nvidia-smi as CMD, Miniconda (latest installer) by wget after apt, a conda env created from an unseen environment.yml, ENTRYPOINT through conda run in that env.
ARG CUDA_VERSION=10.2
FROM nvidia/cuda:$CUDA_VERSION-base
ARG CUDA_VERSION
ENV CUDA_VERSION=$CUDA_VERSION
CMD nvidia-smi
ENV PATH="/root/miniconda3/bin:${PATH}"
ARG PATH="/root/miniconda3/bin:${PATH}"
RUN apt-get update
RUN apt-get install -y wget && rm -rf /var/lib/apt/lists/*
RUN wget https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh \
    && mkdir /root/.conda && bash Miniconda3-latest-Linux-x86_64.sh -b \
    && rm -f Miniconda3-latest-Linux-x86_64.sh
COPY ./environment.yml /tmp/environment.yml
RUN conda env create --name pytorch-cuda-env -f /tmp/environment.yml
ENV PATH /opt/conda/envs/pytorch-cuda-env/bin:$PATH
ENTRYPOINT ["conda", "run", "--no-capture-output", "-n", "pytorch-cuda-env", "python", "train.py"]
