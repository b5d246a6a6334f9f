# Pattern: the stubs directory at the end of LD_LIBRARY_PATH without a .so.1
# name (the linker needs it, the loader never picks it).
FROM nvidia/cuda:12.1.1-devel-ubuntu22.04
ENV LD_LIBRARY_PATH=${LD_LIBRARY_PATH}:/usr/local/cuda/lib64/stubs
