# Pattern: torch pinned without a local version and the variant page given
# with -f (detection and vision research repositories).
FROM nvidia/cuda:11.1.1-cudnn8-runtime-ubuntu20.04
RUN apt-get update && apt-get install -y python3-pip
RUN pip3 install torch==1.10.0 torchvision==0.11.1 -f https://download.pytorch.org/whl/cu111/torch_stable.html
