#!/usr/bin/env bash
# Builds the root Dockerfile with a real Docker engine and runs the image on
# an example, the way a user (or examples/gitlab, or the imagelint-docker
# pre-commit hook) does:
#
#   sudo bash scripts/docker-build-image.sh [WORKDIR]     (default: build/docker-image)
#
# Nothing of the host's Docker is used: a private dockerd (Debian's docker.io,
# as the test suite starts it: vfs storage, its own socket, no bridge, no
# iptables) with its data under WORKDIR, stopped at the end. The base image
# debian:bookworm-slim is made here, with debootstrap (minbase) from the
# Debian mirror apt uses, and `docker import`, so no other registry is
# needed; the build runs with --network host so that apt-get inside it
# reaches that mirror. Needs root, debootstrap, docker.io and the network to
# Debian's archive; takes as long as a full build of imagelint, so it is not
# part of the test suite (docs/integrations.md records when it last ran).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m "${1:-build/docker-image}")
[ "$(id -u)" = 0 ] || { echo "docker-build-image: run as root (dockerd, debootstrap)" >&2; exit 2; }
for tool in dockerd debootstrap; do
  command -v "$tool" >/dev/null || { echo "docker-build-image: $tool is missing" >&2; exit 2; }
done
# The docker.io client that comes with that daemon, before any other on PATH.
docker=/usr/bin/docker
[ -x "$docker" ] || docker=$(command -v docker)
docker() { "$docker" "$@"; }
mirror=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$work"
run=$(mktemp -d /tmp/imagelint-dockerd.XXXXXX)  # short: unix socket paths are bounded
socket="$run/docker.sock"
echo '{}' > "$work/daemon.json"
dockerd --config-file="$work/daemon.json" --data-root="$work/data" --exec-root="$run/exec" \
  --pidfile="$run/dockerd.pid" --host="unix://$socket" --storage-driver=vfs --iptables=false \
  --ip-masq=false --bridge=none > "$work/dockerd.log" 2>&1 &
dockerd_pid=$!
stop() { kill "$dockerd_pid" 2>/dev/null; wait "$dockerd_pid" 2>/dev/null || true; rm -rf "$run"; }
trap stop EXIT
export DOCKER_HOST="unix://$socket" DOCKER_CONFIG="$work/client" DOCKER_BUILDKIT=0
mkdir -p "$DOCKER_CONFIG"
for _ in $(seq 1 600); do docker version >/dev/null 2>&1 && break; sleep 0.1; done
docker version --format 'engine {{.Server.Version}}'

if ! docker image inspect debian:bookworm-slim >/dev/null 2>&1; then
  echo "== debian:bookworm-slim from $mirror (debootstrap --variant=minbase)"
  rm -rf "$work/rootfs"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" > "$work/debootstrap.log" 2>&1
  rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/var/cache/apt/"*.bin
  tar -C "$work/rootfs" -c . | docker import - debian:bookworm-slim
fi

echo "== docker build -t imagelint:local ."
start=$(date +%s)
docker build --network host -t imagelint:local . 2>&1 | tee "$work/build.log"
echo "built in $(( $(date +%s) - start )) s"

echo "== the image at work"
docker image inspect imagelint:local --format 'user {{.Config.User}}, entrypoint {{.Config.Entrypoint}}'
docker run --rm --network none imagelint:local --version
docker run --rm --network none --entrypoint sh imagelint:local -c 'dpkg-query -W -f="\${Package} \${Version}\n" imagelint; ldd /usr/bin/imagelint | grep -c "not found" || true'
mkdir -p "$work/example"
cp examples/fleet.yaml "$work/example/fleet.yaml"
printf 'FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n' > "$work/example/Dockerfile"
chmod -R a+rwX "$work/example"
set +e
docker run --rm --network none -v "$work/example:/work" imagelint:local Dockerfile --fleet fleet.yaml --base-from knowledge
echo "exit $?"
