# Pattern: a CUDA devel builder compiles, the runtime stage gets the binary
# (native CUDA projects with devel -> runtime stages).
FROM nvidia/cuda:12.2.2-devel-ubuntu22.04 AS build
COPY . /src
RUN cd /src && make
FROM nvidia/cuda:12.2.2-runtime-ubuntu22.04
COPY --from=build /src/app /usr/local/bin/app
CMD ["app"]
