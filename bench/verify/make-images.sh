#!/bin/bash
# Builds the inputs of bench/verify/verify_bench.py from genuine Debian
# packages (fetched once with scripts/fetch-nvidia-debs.sh into
# ~/.cache/imagelint/bench-debs):
#   OUT/torch-oci    OCI layout, 4 gzip layers (tar | igzip -3): CUDA runtime,
#                    cuBLAS, python3-torch-cuda, libtorch-cuda (the big one)
#   OUT/torch-save.tar  the same image as an uncompressed docker save (skopeo)
#   OUT/big-oci      >= 8 GB uncompressed: the same layers with libtorch-cuda
#                    repeated six times under distinct prefixes (opt/copyN)
# Cached: each output is built only when absent.
#   bench/verify/make-images.sh [OUT]     (default ~/.cache/imagelint/bench-verify)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="${1:-$HOME/.cache/imagelint/bench-verify}"
debs=$(IMAGELINT_DEBS_LIST="$here/torch-debs.txt" "$here/../../scripts/fetch-nvidia-debs.sh" \
       "$HOME/.cache/imagelint/bench-debs")/root
mkdir -p "$out"

# make_layout DIR LAYER...   each LAYER is "[PREFIX:]pkgdir,pkgdir,..."
make_layout() {
  local dir=$1; shift
  [ -f "$dir/index.json" ] && return 0
  local tmp="$dir.tmp"
  rm -rf "$tmp"; mkdir -p "$tmp/blobs/sha256"
  local diff_ids=() descriptors=() history=()
  for spec in "$@"; do
    local prefix="" pkgs="$spec"
    if [[ "$spec" == *:* ]]; then prefix=${spec%%:*}; pkgs=${spec#*:}; fi
    local args=()
    for pkg in ${pkgs//,/ }; do args+=(-C "$debs/$pkg" .); done
    local transform=()
    [ -n "$prefix" ] && transform=(--transform "s,^\./,./$prefix/,")
    tar --sort=name --owner=0 --group=0 --mtime=@0 --exclude=./.done "${transform[@]}" -cf "$tmp/layer.tar" "${args[@]}"
    local diff_id; diff_id=$(sha256sum "$tmp/layer.tar" | cut -d' ' -f1)
    igzip -3 -c "$tmp/layer.tar" > "$tmp/layer.tar.gz"; rm "$tmp/layer.tar"
    local digest size
    digest=$(sha256sum "$tmp/layer.tar.gz" | cut -d' ' -f1); size=$(stat -c %s "$tmp/layer.tar.gz")
    mv "$tmp/layer.tar.gz" "$tmp/blobs/sha256/$digest"
    diff_ids+=("\"sha256:$diff_id\"")
    descriptors+=("{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"sha256:$digest\",\"size\":$size}")
    history+=("{\"created_by\":\"COPY $spec /\"}")
  done
  local IFS=,
  local config="{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"PATH=/usr/bin\",\"NVIDIA_REQUIRE_CUDA=cuda>=12.4\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[${diff_ids[*]}]},\"history\":[${history[*]}]}"
  unset IFS
  printf '%s' "$config" > "$tmp/c"
  local cd cs; cd=$(sha256sum "$tmp/c" | cut -d' ' -f1); cs=$(stat -c %s "$tmp/c"); mv "$tmp/c" "$tmp/blobs/sha256/$cd"
  local IFS=,
  local manifest="{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:$cd\",\"size\":$cs},\"layers\":[${descriptors[*]}]}"
  unset IFS
  printf '%s' "$manifest" > "$tmp/m"
  local md ms; md=$(sha256sum "$tmp/m" | cut -d' ' -f1); ms=$(stat -c %s "$tmp/m"); mv "$tmp/m" "$tmp/blobs/sha256/$md"
  printf '{"imageLayoutVersion":"1.0.0"}' > "$tmp/oci-layout"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"bench"}}]}' \
    "$md" "$ms" > "$tmp/index.json"
  rm -rf "$dir"; mv "$tmp" "$dir"
}

runtime="libcudart12_trixie,libcuda1_trixie"
blas="libcublas12_trixie,libcublaslt12_trixie"
python="python3-torch-cuda_trixie"
torch="libtorch-cuda-2.6_trixie"
make_layout "$out/torch-oci" "$runtime" "$blas" "$python" "$torch"
if [ ! -f "$out/torch-save.tar" ]; then
  skopeo copy -q "oci:$out/torch-oci:bench" "docker-archive:$out/torch-save.tar.tmp:bench/torch:1"
  mv "$out/torch-save.tar.tmp" "$out/torch-save.tar"
fi
make_layout "$out/big-oci" "$runtime" "$blas" "$python" "$torch" \
  "opt/copy1:$torch" "opt/copy2:$torch" "opt/copy3:$torch" "opt/copy4:$torch" "opt/copy5:$torch"
echo "$out"
