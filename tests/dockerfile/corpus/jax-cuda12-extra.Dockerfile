# Pattern: jax with the cuda12 extra (NVIDIA wheels from pip).
FROM nvidia/cuda:12.2.2-base-ubuntu22.04
RUN apt-get update && apt-get install -y python3-pip
RUN pip3 install "jax[cuda12]==0.4.30"
