# Pattern: NVIDIA_REQUIRE_CUDA lowered by hand on an official image.
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
ENV NVIDIA_REQUIRE_CUDA="cuda>=11.0"
