# Pattern: a floating TensorFlow GPU tag as the base and a torch wheel installed by its URL.
FROM tensorflow/tensorflow:nightly-gpu
RUN apt-get update && apt-get install -y git
RUN pip install http://download.pytorch.org/whl/cu90/torch-0.4.0-cp27-cp27mu-linux_x86_64.whl torchvision
