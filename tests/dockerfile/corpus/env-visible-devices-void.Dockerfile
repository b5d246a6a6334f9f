# Pattern: NVIDIA_VISIBLE_DEVICES=void on a plain base (a sidecar that must
# not get GPUs).
FROM debian:bookworm-slim
ENV NVIDIA_VISIBLE_DEVICES=void
CMD ["sleep", "infinity"]
