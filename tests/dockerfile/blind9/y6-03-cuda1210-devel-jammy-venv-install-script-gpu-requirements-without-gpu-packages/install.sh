#!/bin/bash
# reduced: activate the venv and install the GPU (or CPU) requirements file
SCRIPT_DIR=$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )
source "${SCRIPT_DIR}/venv/bin/activate" || exit 1
if [[ $CUDA_SUPPORT == "True" ]]; then
    pip install --no-cache-dir -r "${SCRIPT_DIR}/requirements_gpu.txt"
else
    pip install --no-cache-dir -r "${SCRIPT_DIR}/requirements_cpu.txt"
fi
exit 0
