# Reduced: builds pagedkv_fusion._C with torch's CUDAExtension; PAGEDKV_FORCE_CUDA=1 makes a missing torch an error.
import os
from setuptools import setup

def _cuda_ext():
    try:
        import torch  # noqa: F401
        from torch.utils.cpp_extension import BuildExtension, CUDAExtension
    except ImportError:
        return None, None
    ext = CUDAExtension(name="pagedkv_fusion._C",
                        sources=["csrc/bindings.cpp", "csrc/eviction_score.cu"])
    return [ext], {"build_ext": BuildExtension}

exts, cmd = _cuda_ext()
if not exts and os.environ.get("PAGEDKV_FORCE_CUDA") == "1":
    raise RuntimeError("PAGEDKV_FORCE_CUDA=1 but torch/CUDA toolchain unavailable")
setup(ext_modules=exts or [], cmdclass=cmd or {})
