# Pattern: NVIDIA_DISABLE_REQUIRE=1 to start on older drivers.
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
ENV NVIDIA_DISABLE_REQUIRE=1
