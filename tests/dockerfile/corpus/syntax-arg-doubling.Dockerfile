# Pattern: ARG values built from earlier ARGs (here a chain that a real file
# keeps to two or three levels).
ARG REGISTRY=nvidia
ARG IMAGE=${REGISTRY}/cuda
ARG TAG=12.2.2-runtime-ubuntu22.04
FROM ${IMAGE}:${TAG}
