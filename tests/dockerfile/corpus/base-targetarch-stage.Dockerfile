# Pattern: the final stage chosen by TARGETARCH through a global ARG
# (per-architecture stages, as multi-arch GPU servers do).
ARG FLAVOR=${TARGETARCH}
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS runtime-amd64
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS runtime-arm64
FROM runtime-${FLAVOR}
ENV APP_HOME=/app
