# Pattern: untagged pytorch/pytorch (latest), unpinned transformers and flask, script CMD in single quotes (shell form)
FROM pytorch/pytorch
RUN pip install transformers flask
COPY index.sh /app/run/index.sh
COPY main.py /app/run/main.py
CMD ['/app/run/index.sh']
