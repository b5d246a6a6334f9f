# Pattern: NGC PyTorch 22.04, a pip mirror set by pip config, requirements, then a wheel from the context.
FROM nvcr.io/nvidia/pytorch:22.04-py3
COPY ./requirements.txt /app/requirements.txt
RUN pip config set global.index-url https://pypi.tuna.tsinghua.edu.cn/simple
RUN pip install -r /app/requirements.txt
COPY ./lib/pydock-0.4-cp38-cp38-manylinux_2_31_x86_64.whl /app/
RUN pip install /app/pydock-0.4-cp38-cp38-manylinux_2_31_x86_64.whl
