# Pattern: the L4T base release in an ARG before FROM (L4T 35.4.1), build tools from apt.
ARG L4T_VERSION=35.4.1
FROM nvcr.io/nvidia/l4t-base:${L4T_VERSION}
ARG L4T_VERSION=35.4.1
RUN echo "L4T_VERSION=${L4T_VERSION}"
RUN apt-get update && apt-get install -y build-essential cmake curl git pkg-config v4l-utils
ENTRYPOINT ["/bin/bash"]
