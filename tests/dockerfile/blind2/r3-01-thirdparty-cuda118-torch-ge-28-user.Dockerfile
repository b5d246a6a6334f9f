# Pattern: a vendor image built on nvidia/cuda 11.8 cuDNN runtime jammy (python3.10), torch>=2.8 unpinned above from PyPI into the user site.
FROM hub.vendor.example/runner-images/gpu:python3.10_cuda11.8_opencv
RUN ${PY_EXE} -m pip install --upgrade pip
RUN ${PY_EXE} -m pip install --user 'torch>=2.8.0' 'torchvision' 'torchaudio'
