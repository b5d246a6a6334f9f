# Pattern: nvidia/cuda 10.2 base by a short tag, nvidia-smi as the command, apt's python3 and pip (one apt-get install without -y), requirements through pip3.
FROM nvidia/cuda:10.2-base
CMD nvidia-smi
RUN apt-get update && apt-get install --no-install-recommends --no-install-suggests -y curl
RUN apt-get install unzip
RUN apt-get -y install python3 python3-pip
RUN pip install --upgrade pip
COPY requirements.txt requirements.txt
RUN pip3 install -r requirements.txt
WORKDIR /app
COPY . .
