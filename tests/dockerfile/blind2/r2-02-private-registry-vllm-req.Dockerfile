# Pattern: a base from a private registry by IP, requirements through a mirror, then unpinned vLLM.
FROM 10.0.0.5:5000/team/llm-gpu
ENV MAX_JOBS=32
COPY ./requirements.txt /requirements.txt
RUN pip3 install -r /requirements.txt -i https://pypi.tuna.tsinghua.edu.cn/simple --no-build-isolation && rm /requirements.txt
COPY ./requirements-serve.txt /requirements-serve.txt
RUN pip3 install -r /requirements-serve.txt -i https://pypi.tuna.tsinghua.edu.cn/simple && rm /requirements-serve.txt
RUN pip3 install vllm -i https://pypi.tuna.tsinghua.edu.cn/simple
