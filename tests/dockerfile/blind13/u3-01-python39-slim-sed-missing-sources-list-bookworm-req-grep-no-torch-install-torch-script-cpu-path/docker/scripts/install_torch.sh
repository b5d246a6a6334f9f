#!/bin/bash
# reduced: GPU detection by nvidia-smi at build time, else a fixed CPU-path torch
set -e
PIP_INDEX_URL=${PIP_INDEX_URL:-https://pypi.tuna.tsinghua.edu.cn/simple}
apt-get update > /dev/null 2>&1
if apt-get install -y --no-install-recommends nvidia-cuda-toolkit > /dev/null 2>&1; then HAS_NVIDIA=1; else HAS_NVIDIA=0; fi
rm -rf /var/lib/apt/lists/*
if [ "$HAS_NVIDIA" -eq 1 ] && nvidia-smi > /dev/null 2>&1; then
    CUDA_MAJOR=$(nvidia-smi | grep "CUDA Version" | awk '{print $9}' | cut -d. -f1)
    if [ "$CUDA_MAJOR" -eq 12 ]; then
        pip install torch==2.3.0 torchvision==0.18.0 -i $PIP_INDEX_URL
    else
        pip install torch==1.13.1 torchvision==0.14.1 -i $PIP_INDEX_URL
    fi
else
    pip install torch==2.0.0 torchvision==0.15.1 --index-url $PIP_INDEX_URL
fi
python -c "import torch; print(torch.__version__, torch.cuda.is_available())"
pip install 'ultralytics>=8.0.0' --no-cache-dir -i $PIP_INDEX_URL
pip install 'numpy<2.0.0' --no-cache-dir -i $PIP_INDEX_URL
