# Pattern: two FROMs, an unused nvidia/cuda 8.0 stage and a final continuumio/miniconda3 stage that only creates an empty conda env (and calls conda activate in a RUN); no CUDA, no framework in the image.
FROM nvidia/cuda:8.0-cudnn7-runtime-ubuntu16.04
FROM continuumio/miniconda3
USER root
RUN conda create -n torch python=3.6
RUN conda activate torch
WORKDIR /code/
