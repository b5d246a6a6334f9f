# Pattern: non-final patch tag nvidia/cuda:12.2.0-base-ubuntu22.04, apt python3-pip + libgl1, pip -r requirements, CMD python3 main.py
FROM nvidia/cuda:12.2.0-base-ubuntu22.04
RUN apt-get update && apt-get install -y python3-pip libgl1
WORKDIR /app
COPY . /app
RUN pip install -r requirements.txt
CMD ["python3", "main.py"]
