# Pattern: OS-less short tag nvidia/cuda:12.1-base, apt python3-pip, whole context copied, pip -r requirements, CMD python main.py
FROM nvidia/cuda:12.1-base
RUN apt-get update && apt-get install -y python3-pip
COPY . /app
WORKDIR /app
RUN pip install -r requirements.txt
CMD ["python", "main.py"]
