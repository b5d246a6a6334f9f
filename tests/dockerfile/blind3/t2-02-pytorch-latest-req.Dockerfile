# Pattern: pytorch/pytorch:latest with a requirements file, shell as the command.
FROM pytorch/pytorch:latest
WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
CMD ["bash"]
