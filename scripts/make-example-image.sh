#!/usr/bin/env bash
# make-example-image.sh OUTPUT.tar
#
# Builds a realistic CUDA 12.4-style image from genuine NVIDIA libraries
# (Debian non-free packages fetched by scripts/fetch-nvidia-debs.sh) with the
# real tools umoci and skopeo, and writes it as a docker-archive tarball:
#
#   layer 0  "base":    /usr/local/cuda-12.4/version.json, /usr/local/cuda -> cuda-12.4,
#                       /etc/ld.so.conf + ld.so.conf.d/nvidia.conf, a dpkg status
#                       naming cuda-cudart-12-4 / cuda-compat-12-4 / libcublas-12-4
#   layer 1  "runtime": libcudart.so.12.4.127 (+ SONAME link) from libcudart12,
#                       libcublas.so.12.4.5.8 from libcublas12 (SASS sm_50..sm_90, PTX 8.3)
#   layer 2  "compat":  /usr/local/cuda-12.4/compat/libcuda.so.550.163.01 from libcuda1/trixie
#                       (+ libcuda.so.1 link), as cuda-compat-12-4 installs it
#   config:  CUDA_VERSION=12.4.1, NVIDIA_REQUIRE_CUDA exactly as nvidia/cuda:12.4.1-base-ubuntu22.04
#            carries it (dist/12.4.1/ubuntu2204/base/Dockerfile of
#            https://gitlab.com/nvidia/container-images/cuda), NV_CUDA_CUDART_VERSION, NV_CUDA_COMPAT_PACKAGE,
#            LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64, NVIDIA_VISIBLE_DEVICES,
#            NVIDIA_DRIVER_CAPABILITIES, PATH.
#
# Environment: IMAGELINT_NVIDIA_DEBS (default ~/.cache/imagelint/nvidia-debs),
# EXAMPLE_WITH_CUBLAS=0 to leave cuBLAS out (smaller, faster image).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTPUT.tar" >&2
  exit 2
fi
output=$1
debs=${IMAGELINT_NVIDIA_DEBS:-$HOME/.cache/imagelint/nvidia-debs}
with_cublas=${EXAMPLE_WITH_CUBLAS:-1}
for tool in umoci skopeo; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 2; }
done
[ -f "$debs/index.tsv" ] || { echo "$0: $debs/index.tsv missing; run scripts/fetch-nvidia-debs.sh" >&2; exit 2; }

package_root() {  # package suite -> unpacked root
  awk -F'\t' -v p="$1" -v s="$2" '$1 == p && $2 == s { print $4 }' "$debs/index.tsv"
}
package_version() {
  awk -F'\t' -v p="$1" -v s="$2" '$1 == p && $2 == s { print $3 }' "$debs/index.tsv"
}
need_root() {
  local root
  root=$(package_root "$1" "$2")
  [ -n "$root" ] && [ -d "$root" ] || { echo "$0: package $1 ($2) not fetched" >&2; exit 2; }
  echo "$root"
}

cudart_root=$(need_root libcudart12 trixie)
cuda_root=$(need_root libcuda1 trixie)
cudart_file=$(cd "$cudart_root" && find . -name 'libcudart.so.12.*' -type f | head -1)
cuda_file=$(cd "$cuda_root" && find . -name 'libcuda.so.*.*' -type f | head -1)
cudart_version=${cudart_file##*libcudart.so.}   # 12.4.127
driver_version=${cuda_file##*libcuda.so.}       # 550.163.01

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
layout="$work/oci"
umoci init --layout "$layout"
umoci new --image "$layout:example"

# One layer per step: unpack, add files, repack.
add_layer() {  # name, function that fills $rootfs
  local name=$1 fill=$2
  rm -rf "$work/bundle"
  umoci unpack --image "$layout:example" "$work/bundle" >/dev/null
  rootfs="$work/bundle/rootfs"
  "$fill"
  umoci repack --image "$layout:example" --history.created_by "imagelint example: $name" "$work/bundle" >/dev/null
}

fill_base() {
  mkdir -p "$rootfs/usr/local/cuda-12.4" "$rootfs/etc/ld.so.conf.d" "$rootfs/var/lib/dpkg"
  ln -s cuda-12.4 "$rootfs/usr/local/cuda"
  cat > "$rootfs/usr/local/cuda-12.4/version.json" <<EOF
{
   "cuda" : { "name" : "CUDA SDK", "version" : "12.4.1" },
   "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "$cudart_version" },
   "libcublas" : { "name" : "CUDA cuBLAS", "version" : "12.4.5.8" }
}
EOF
  printf 'include /etc/ld.so.conf.d/*.conf\n' > "$rootfs/etc/ld.so.conf"
  printf '/usr/local/nvidia/lib\n/usr/local/nvidia/lib64\n' > "$rootfs/etc/ld.so.conf.d/nvidia.conf"
  printf '/usr/local/cuda-12.4/targets/x86_64-linux/lib\n' > "$rootfs/etc/ld.so.conf.d/988_cuda-12.conf"
  cat > "$rootfs/var/lib/dpkg/status" <<EOF
Package: cuda-cudart-12-4
Status: install ok installed
Architecture: amd64
Version: $cudart_version-1

Package: cuda-compat-12-4
Status: install ok installed
Architecture: amd64
Version: $driver_version-1

Package: libcublas-12-4
Status: install ok installed
Architecture: amd64
Version: 12.4.5.8-1

EOF
}

fill_runtime() {
  local lib="$rootfs/usr/local/cuda-12.4/targets/x86_64-linux/lib"
  mkdir -p "$lib"
  cp "$cudart_root/$cudart_file" "$lib/libcudart.so.$cudart_version"
  ln -s "libcudart.so.$cudart_version" "$lib/libcudart.so.12"
  if [ "$with_cublas" = 1 ]; then
    local cublas_root cublas_file
    cublas_root=$(need_root libcublas12 trixie)
    cublas_file=$(cd "$cublas_root" && find . -name 'libcublas.so.12.*' -type f | head -1)
    cp "$cublas_root/$cublas_file" "$lib/${cublas_file##*/}"
    ln -s "${cublas_file##*/}" "$lib/libcublas.so.12"
  fi
  ln -s targets/x86_64-linux/lib "$rootfs/usr/local/cuda-12.4/lib64"
}

fill_compat() {
  local compat="$rootfs/usr/local/cuda-12.4/compat"
  mkdir -p "$compat"
  cp "$cuda_root/$cuda_file" "$compat/libcuda.so.$driver_version"
  ln -s "libcuda.so.$driver_version" "$compat/libcuda.so.1"
}

add_layer base fill_base
add_layer runtime fill_runtime
add_layer compat fill_compat

# NVIDIA_REQUIRE_CUDA of the official 12.4.1 base image: cuda>=12.4 or a
# forward-compat branch (470, 525, 535) on any brand of set B10.
require="cuda>=12.4"
for branch in 470 525 535; do
  for brand in tesla unknown nvidia nvidiartx geforce geforcertx quadro quadrortx titan titanrtx; do
    require+=" brand=$brand,driver>=$branch,driver<$((branch + 1))"
  done
done
umoci config --image "$layout:example" \
  --config.env "PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --config.env "NVARCH=x86_64" \
  --config.env "NVIDIA_REQUIRE_CUDA=$require" \
  --config.env "NV_CUDA_CUDART_VERSION=$cudart_version-1" \
  --config.env "NV_CUDA_COMPAT_PACKAGE=cuda-compat-12-4" \
  --config.env "CUDA_VERSION=12.4.1" \
  --config.env "LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64" \
  --config.env "NVIDIA_VISIBLE_DEVICES=all" \
  --config.env "NVIDIA_DRIVER_CAPABILITIES=compute,utility" \
  --config.label "maintainer=NVIDIA CORPORATION <cudatools@nvidia.com>" \
  --config.label "org.imagelint.example=cuda-12.4 runtime with compat libcuda $driver_version (libcuda1 $(package_version libcuda1 trixie))" \
  --architecture amd64 --os linux \
  --history.created_by "imagelint example: config" >/dev/null

mkdir -p "$(dirname "$output")"
rm -f "$output"
skopeo copy --quiet "oci:$layout:example" "docker-archive:$output:imagelint/example:cuda12.4" >&2
echo "$output"
