# Pattern: an old pytorch/pytorch devel base whose torch the requirements file replaces.
FROM pytorch/pytorch:0.4.1-cuda9-cudnn7-devel
COPY . /workspace
RUN pip install --upgrade pip && pip install -r /workspace/requirements.txt
EXPOSE 8008
