# Pattern: two FROM lines without tags; the second (nvidia/cuda has no latest tag) is the image.
FROM pytorch/pytorch
FROM nvidia/cuda
RUN mkdir /app
COPY ./environment_pip.txt /app
WORKDIR /app
RUN pip install -r environment_pip.txt
