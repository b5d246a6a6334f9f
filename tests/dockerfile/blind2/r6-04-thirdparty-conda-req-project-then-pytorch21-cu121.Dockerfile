# Pattern: a third-party conda image, requirements and the project first, then nvcc and pytorch 2.1.* with pytorch-cuda=12.1 by conda last.
FROM someorg/conda:py39
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git cmake build-essential \
    && apt-get clean && rm -rf /var/lib/apt/lists/*
COPY setup.py .
COPY pyproject.toml .
COPY requirements.txt .
RUN pip install --upgrade pip
RUN pip install -r requirements.txt
RUN pip install --no-cache-dir -e .
RUN conda install -y -c nvidia cuda-nvcc
RUN conda install -y pytorch=2.1.* torchvision torchaudio pytorch-cuda=12.1 -c pytorch -c nvidia
WORKDIR /workspace
