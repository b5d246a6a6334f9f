# Pattern: the torch requirement built in a shell variable of the same RUN and
# expanded unquoted (serving engines that pin the minor release).
FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04
ARG TORCH_MINOR=2.3
RUN apt-get update && apt-get install -y python3-pip && \
    TORCH_REQ='torch=='$TORCH_MINOR'.*' && \
    pip3 install $TORCH_REQ --extra-index-url https://download.pytorch.org/whl/cu121
