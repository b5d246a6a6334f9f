# Pattern: a private registry base named for CUDA 9.1, a tool copied in, labels describing the build.
FROM phillyregistry.azurecr.io/philly/jobs/base/philly-openmpi:1.10.3-ubuntu.16.04-cuda.9.1-cudnn.7
COPY toolkit-execute /home/job/toolkit-execute
RUN chmod u+x /home/job/toolkit-execute
LABEL description="pytorch 0.4.1 in anaconda python36 with cuda 9.1" tooltype="pytorch" tooltypeversion="0.4.1"
