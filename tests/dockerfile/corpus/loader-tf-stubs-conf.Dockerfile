# Pattern: the TensorFlow GPU images' stub block: a .so.1 link in the stubs
# directory, the directory listed in /etc/ld.so.conf.d/z-cuda-stubs.conf, ldconfig.
FROM nvidia/cuda:11.8.0-cudnn8-devel-ubuntu22.04
RUN ln -s /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib64/stubs/libcuda.so.1 \
    && echo "/usr/local/cuda/lib64/stubs" > /etc/ld.so.conf.d/z-cuda-stubs.conf \
    && ldconfig
