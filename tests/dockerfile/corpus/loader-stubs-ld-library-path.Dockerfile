# Pattern: the stubs directory first on LD_LIBRARY_PATH with a .so.1 link
# (left over from a build step).
FROM nvidia/cuda:12.1.1-devel-ubuntu22.04
RUN ln -s /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/lib64/stubs/libcuda.so.1
ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:${LD_LIBRARY_PATH}
