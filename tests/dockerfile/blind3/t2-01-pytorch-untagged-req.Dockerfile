# Pattern: pytorch/pytorch without a tag (latest), requirements, then the sources.
FROM pytorch/pytorch
WORKDIR /usr/src/app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
