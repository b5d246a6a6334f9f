#!/bin/bash
# Builds the image benchmark input: an OCI layout of >= 1 GiB (uncompressed)
# made from the genuine NVIDIA packages that scripts/fetch-nvidia-debs.sh
# unpacked, in six gzip layers (tar | igzip). Cached: rebuilt only when absent.
#   bench/make-image-bench.sh [OUT_DIR]   (default ~/.cache/imagelint/bench-image)
set -euo pipefail
out="${1:-$HOME/.cache/imagelint/bench-image}"
debs="$HOME/.cache/imagelint/nvidia-debs/root"
if [ -f "$out/index.json" ]; then echo "$out"; exit 0; fi
[ -d "$debs" ] || { echo "missing $debs: run scripts/fetch-nvidia-debs.sh" >&2; exit 2; }
tmp="$out.tmp"
rm -rf "$tmp"
mkdir -p "$tmp/blobs/sha256"
layers=(
  "libcublaslt12_trixie"
  "libcufft11_trixie"
  "libcusparse12_trixie"
  "nvidia-cuda-toolkit_trixie"
  "libcublas12_trixie libcurand10_trixie"
  "$(cd "$debs" && ls -d libcuda1_* libnvidia-tesla-* libcudart* | tr '\n' ' ')"
)
diff_ids=()
descriptors=()
history=()
for group in "${layers[@]}"; do
  dirs=()
  for pkg in $group; do dirs+=("$pkg"); done
  # One tar per layer; file paths as they would sit in an image (usr/lib/...).
  tar --sort=name --owner=0 --group=0 --mtime=@0 -cf "$tmp/layer.tar" \
      $(for d in "${dirs[@]}"; do printf -- '-C %s/%s . ' "$debs" "$d"; done)
  diff_id=$(sha256sum "$tmp/layer.tar" | cut -d' ' -f1)
  igzip -3 -c "$tmp/layer.tar" > "$tmp/layer.tar.gz"
  rm "$tmp/layer.tar"
  digest=$(sha256sum "$tmp/layer.tar.gz" | cut -d' ' -f1)
  size=$(stat -c %s "$tmp/layer.tar.gz")
  mv "$tmp/layer.tar.gz" "$tmp/blobs/sha256/$digest"
  diff_ids+=("\"sha256:$diff_id\"")
  descriptors+=("{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\"sha256:$digest\",\"size\":$size}")
  history+=("{\"created_by\":\"COPY ${dirs[*]} /\"}")
done
join() { local IFS=,; echo "$*"; }
config="{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"PATH=/usr/bin\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[$(join "${diff_ids[@]}")]},\"history\":[$(join "${history[@]}")]}"
printf '%s' "$config" > "$tmp/config.json"
config_digest=$(sha256sum "$tmp/config.json" | cut -d' ' -f1)
config_size=$(stat -c %s "$tmp/config.json")
mv "$tmp/config.json" "$tmp/blobs/sha256/$config_digest"
manifest="{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"sha256:$config_digest\",\"size\":$config_size},\"layers\":[$(join "${descriptors[@]}")]}"
printf '%s' "$manifest" > "$tmp/manifest.json"
manifest_digest=$(sha256sum "$tmp/manifest.json" | cut -d' ' -f1)
manifest_size=$(stat -c %s "$tmp/manifest.json")
mv "$tmp/manifest.json" "$tmp/blobs/sha256/$manifest_digest"
printf '{"imageLayoutVersion":"1.0.0"}' > "$tmp/oci-layout"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"bench"}}]}' \
  "$manifest_digest" "$manifest_size" > "$tmp/index.json"
rm -rf "$out"
mv "$tmp" "$out"
echo "$out"
