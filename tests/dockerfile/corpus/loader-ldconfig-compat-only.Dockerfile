# Pattern: ldconfig run on the compat directory without registering it (no
# conf file: the cache it writes is rebuilt at container start).
FROM nvidia/cuda:12.8.1-devel-ubuntu22.04
RUN ldconfig /usr/local/cuda-12.8/compat/
