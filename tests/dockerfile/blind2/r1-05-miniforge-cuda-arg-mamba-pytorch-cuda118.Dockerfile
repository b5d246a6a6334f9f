# Pattern: CUDA and Python in ARGs of a miniforge-cuda base; an env file applied, pytorch removed and reinstalled with pytorch-cuda=${CUDA major.minor}.
ARG CUDA_VER=11.8.0
ARG PYTHON_VER=3.10
ARG LINUX_VER=ubuntu20.04
FROM rapidsai/miniforge-cuda:cuda${CUDA_VER}-base-${LINUX_VER}-py${PYTHON_VER} AS base
ARG CUDA_VER
ARG PYTHON_VER
WORKDIR /home
COPY env.yml env.yml
RUN mamba env update -n base --file env.yml \
    && mamba uninstall -y pytorch torchvision \
    && mamba install -y -n base -c pytorch -c nvidia -c conda-forge \
        "cudatoolkit=${CUDA_VER%.*}.*" "cuda-version=${CUDA_VER%.*}.*" \
        pytorch torchvision "pytorch-cuda=${CUDA_VER%.*}.*" \
    && conda clean -afy && rm env.yml
FROM base AS app
COPY . .
