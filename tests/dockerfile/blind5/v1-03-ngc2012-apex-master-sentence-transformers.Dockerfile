# Pattern: NGC PyTorch 20.12, NVIDIA apex cloned from its default branch and built with the C++/CUDA extensions, then unpinned transformers and sentence-transformers (which may ask for a newer torch).
FROM nvcr.io/nvidia/pytorch:20.12-py3
RUN python3 -m pip install --no-cache-dir --upgrade pip
RUN git clone https://github.com/NVIDIA/apex
RUN cd apex && python3 setup.py install && \
    pip install -v --no-cache-dir --global-option="--cpp_ext" --global-option="--cuda_ext" ./
RUN pip install --no-cache-dir transformers requests dill && \
    pip install --no-cache-dir sentence-transformers tokenizers
