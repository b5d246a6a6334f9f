# imagelint as a container image, built from the checkout it sits in (the build
# context is that checkout; nothing else is fetched but Debian packages).
#   docker build -t imagelint .
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/work" imagelint app.tar --fleet fleet.yaml
# --user makes the reports (--format sarif=..., markdown=...) belong to you and
# lets imagelint write them into a directory only you can write; without it the
# container runs as the unprivileged user imagelint (uid 10001).
#
# The build stage makes the Debian package (`--target package`: CPack, its
# Depends read off the binary by dpkg-shlibdeps); the runtime stage installs
# it with apt, which brings exactly the libraries that binary needs. This is
# also the image of the pre-commit hook `imagelint-docker` (language: docker
# builds the repository's root Dockerfile) and of examples/gitlab.
FROM debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config dpkg-dev file \
      libarchive-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev doctest-dev \
      libcurl4-openssl-dev libssl-dev libzstd-dev liblz4-dev libisal-dev libre2-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build /build --target package \
 && mkdir /out && cp /build/imagelint_*.deb /out/

FROM debian:bookworm-slim
COPY --from=build /out/ /tmp/imagelint/
# apt, not dpkg -i: the package's Depends (libarchive13, libre2-9, ...) come
# with it; ca-certificates for registries over TLS.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      /tmp/imagelint/imagelint_*.deb ca-certificates \
 && rm -rf /var/lib/apt/lists/* /tmp/imagelint \
 && useradd --create-home --uid 10001 imagelint
USER imagelint
WORKDIR /work
ENTRYPOINT ["imagelint"]
CMD ["--help"]
