# Pattern: python:3.10, jax upgraded with the cuda12_pip extra and the JAX CUDA releases page as a find-links source, then plain scientific packages.
FROM python:3.10
RUN pip install --upgrade "jax[cuda12_pip]" -f https://storage.googleapis.com/jax-releases/jax_cuda_releases.html
RUN pip install tqdm matplotlib numpy
