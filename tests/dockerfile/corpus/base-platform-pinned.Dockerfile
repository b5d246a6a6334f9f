# Pattern: FROM --platform=linux/amd64 pins the image to amd64 whatever the
# builder (projects that ship amd64 only).
FROM --platform=linux/amd64 nvidia/cuda:12.4.1-runtime-ubuntu22.04
RUN apt-get update && apt-get install -y python3
