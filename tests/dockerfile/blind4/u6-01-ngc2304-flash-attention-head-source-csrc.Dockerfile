# Pattern: NGC PyTorch 23.04, flash-attention cloned at its default branch and built from source (its layer_norm and rotary CUDA extensions, then the package), pinned deepspeed/transformers in between.
FROM nvcr.io/nvidia/pytorch:23.04-py3
WORKDIR /workdir
RUN git clone https://github.com/Dao-AILab/flash-attention.git
RUN cd flash-attention/csrc/layer_norm && python setup.py install
RUN cd flash-attention/csrc/rotary && python setup.py install
RUN pip install ninja deepspeed==0.10.3 tokenizers==0.14.1 einops transformers==4.34.1
RUN cd flash-attention && python setup.py install
