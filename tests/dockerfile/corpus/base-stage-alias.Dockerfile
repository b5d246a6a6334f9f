# Pattern: a named base stage that later stages build on (FROM base AS app).
FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04 AS base
ENV DEBIAN_FRONTEND=noninteractive
FROM base AS app
WORKDIR /workspace
COPY . .
