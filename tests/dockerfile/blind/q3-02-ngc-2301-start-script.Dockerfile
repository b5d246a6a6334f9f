# Pattern: NGC PyTorch 23.01 with apt upgrades and a start script written by echo.
FROM nvcr.io/nvidia/pytorch:23.01-py3
RUN apt-get update
RUN apt-get upgrade -y
RUN echo "python3 -c 'import torch; print(torch.cuda.get_device_name(0))'" > start.sh
RUN chmod +x start.sh
CMD ["bash", "start.sh"]
