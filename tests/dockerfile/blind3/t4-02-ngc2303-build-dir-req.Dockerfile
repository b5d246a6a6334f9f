# Pattern: NGC PyTorch 23.03 (commented as "latest"), requirements in /build installed as root with a trusted host.
FROM nvcr.io/nvidia/pytorch:23.03-py3
WORKDIR /build
COPY requirements.txt /build/
RUN pip install --upgrade pip && \
    pip install --root-user-action=ignore --trusted-host pypi.python.org -r requirements.txt
