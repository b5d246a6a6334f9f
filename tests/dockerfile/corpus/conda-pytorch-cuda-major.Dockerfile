# Pattern: conda install with pytorch-cuda pinned to a major version only.
FROM continuumio/miniconda3:24.1.2-0
RUN conda install -y pytorch pytorch-cuda=12 -c pytorch -c nvidia && conda clean -ya
