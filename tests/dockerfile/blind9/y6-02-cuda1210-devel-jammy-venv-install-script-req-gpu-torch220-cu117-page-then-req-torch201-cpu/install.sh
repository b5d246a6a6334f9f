#!/bin/bash
# reduced: activate the venv, install the GPU (or CPU) requirements, then the main requirements
SCRIPT_DIR=$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )
source "${SCRIPT_DIR}/venv/bin/activate" || exit 1
if [[ $CUDA_SUPPORT == "True" ]]; then
    CMAKE_ARGS="-DLLAMA_CUDA=on" pip install --no-cache-dir -r "${SCRIPT_DIR}/requirements_gpu.txt"
else
    pip install --no-cache-dir -r "${SCRIPT_DIR}/requirements_cpu.txt"
fi
pip install --no-cache-dir -r "${SCRIPT_DIR}/requirements.txt"
exit 0
