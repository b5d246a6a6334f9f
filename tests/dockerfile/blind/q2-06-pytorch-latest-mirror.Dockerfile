# Pattern: pytorch/pytorch without a tag and a requirements file through a mirror index.
FROM pytorch/pytorch
COPY ./ /tianchi
WORKDIR /tianchi
RUN pip install -r requirement.txt -i https://pypi.tuna.tsinghua.edu.cn/simple
