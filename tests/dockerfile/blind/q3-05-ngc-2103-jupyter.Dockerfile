# Pattern: NGC PyTorch 21.03 for Jupyter, tools from apt, requirements at the root.
FROM nvcr.io/nvidia/pytorch:21.03-py3
RUN apt-get update && apt-get install --no-install-recommends -y curl unzip wget
RUN jupyter notebook --generate-config --allow-root
COPY ./requirements.txt /
RUN pip -q install -r /requirements.txt
EXPOSE 8888 6006
WORKDIR /projects
