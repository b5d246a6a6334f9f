# Pattern: ARG-built patch-less nvidia/cuda:11.1-cudnn8-devel-ubuntu16.04, pyenv Python 3.6.8, MXNet 1.6.0 built from source with sm_35..sm_86, sshd CMD
ARG CUDA_VERSION=11.1
ARG CUDNN_VERSION=8
ARG OS_VERSION=16.04
ARG NVCR_SUFFIX=
FROM nvidia/cuda:${CUDA_VERSION}-cudnn${CUDNN_VERSION}-devel-ubuntu${OS_VERSION}${NVCR_SUFFIX}
WORKDIR workspace
RUN apt-get update && \
    apt-get install -y build-essential python-dev python3-dev git wget curl zsh make cmake libopenblas-dev openssh-server && \
    rm -rf /var/lib/apt/lists/*
RUN git clone https://github.com/pyenv/pyenv.git ~/.pyenv && \
    echo 'export PYENV_ROOT="$HOME/.pyenv"' >> ~/.zshrc && \
    echo 'export PATH="$PYENV_ROOT/bin:$PATH"' >> ~/.zshrc && \
    echo 'eval "$(pyenv init -)"' >> ~/.zshrc
RUN /usr/bin/zsh -c "source ~/.zshrc && pyenv install 3.6.8 && pyenv global 3.6.8 && pip install -U numpy scipy opencv-python cython"
RUN /usr/bin/zsh -c "source ~/.zshrc && \
    git clone --recursive https://github.com/apache/incubator-mxnet /tmp/mxnet -b 1.6.0 && cd /tmp/mxnet && \
    echo 'USE_CUDA = 1' >> ./config.mk && echo 'USE_CUDNN = 1' >> ./config.mk && \
    echo 'CUDA_ARCH = -gencode arch=compute_35,code=sm_35 -gencode arch=compute_50,code=sm_50 -gencode arch=compute_60,code=sm_60 -gencode arch=compute_70,code=sm_70 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86' >> ./config.mk && \
    make -j8 && cd python && python3 setup.py install"
EXPOSE 22
CMD ["/usr/sbin/sshd", "-D"]
