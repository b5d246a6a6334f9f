# Pattern: legacy LABEL key = "value" and ENV key value forms (spaces, no '=').
FROM nvidia/cuda:12.4.1-base-ubuntu22.04
LABEL maintainer = "ml-team@example.org"
ENV LANG C.UTF-8
ENV LD_LIBRARY_PATH "$LD_LIBRARY_PATH:/usr/local/nvidia/lib64"
