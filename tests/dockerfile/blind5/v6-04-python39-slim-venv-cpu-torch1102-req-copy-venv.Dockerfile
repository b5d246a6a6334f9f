# Pattern: two stages on python:3.9-slim-buster: a venv with torch 1.10.2+cpu and torchvision 0.11.3+cpu from direct wheel URLs, then an unseen requirements file in the venv; the final stage copies the venv.
FROM python:3.9-slim-buster AS build
RUN apt-get update -y && apt install -y --no-install-recommends git && pip install --no-cache-dir -U pip
COPY requirements.txt .
RUN python3 -m venv /venv
ENV PATH=/venv/bin:$PATH
RUN pip install --no-cache-dir https://download.pytorch.org/whl/cpu/torch-1.10.2%2Bcpu-cp39-cp39-linux_x86_64.whl \
    && pip install --no-cache-dir https://download.pytorch.org/whl/cpu/torchvision-0.11.3%2Bcpu-cp39-cp39-linux_x86_64.whl \
    && pip install --no-cache-dir -r requirements.txt

FROM python:3.9-slim-buster
COPY --from=build /venv /venv
ENV PATH=/venv/bin:$PATH
WORKDIR /code
COPY . .
