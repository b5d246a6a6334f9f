# Pattern: a requirements file installed with the all-variant find-links page on the python image.
FROM python:3.8
ADD . /app
WORKDIR /app
RUN pip install -r requirements.txt -f https://download.pytorch.org/whl/torch_stable.html
CMD python main.py
