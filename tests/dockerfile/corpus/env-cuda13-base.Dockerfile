# Pattern: a CUDA 13.0 runtime base (newest major release).
FROM nvidia/cuda:13.0.0-runtime-ubuntu24.04
