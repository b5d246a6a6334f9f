# Pattern: a driver user-space package installed into the image (the
# compute library of a driver branch baked in).
FROM nvidia/cuda:11.8.0-base-ubuntu22.04
RUN apt-get update && apt-get install -y --no-install-recommends libnvidia-compute-535
