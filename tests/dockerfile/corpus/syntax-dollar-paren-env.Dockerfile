# Pattern: $( ) written in an ENV value, which BuildKit stores literally.
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
ENV PYTHONPATH=$(pwd)/lib:/opt/app
