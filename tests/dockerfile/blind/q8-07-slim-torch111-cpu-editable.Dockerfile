# Pattern: torch 1.11+cpu from the all-variant page, then the project in editable mode with extras.
FROM python:3.10.11-slim
COPY ./ /root/code
RUN apt-get update && apt-get install gcc -y
RUN cd /root/code && python3 -m pip install --upgrade pip && pip install torch==1.11+cpu -f https://download.pytorch.org/whl/torch_stable.html && python3 -m pip install -e .[dev]
CMD /bin/bash
