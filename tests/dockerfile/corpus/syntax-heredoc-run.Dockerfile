# Pattern: a RUN heredoc script (BuildKit dockerfile:1.4+) installing the CUDA torch wheel.
# syntax=docker/dockerfile:1.7
FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04
RUN <<EOF
apt-get update
apt-get install -y python3-pip
pip3 install torch==2.3.1 --index-url https://download.pytorch.org/whl/cu121
EOF
