# Pattern: conda install with pytorch-cuda=X.Y from the pytorch and nvidia channels.
FROM continuumio/miniconda3:24.1.2-0
RUN conda install -y pytorch==2.1.0 pytorch-cuda=12.1 -c pytorch -c nvidia
