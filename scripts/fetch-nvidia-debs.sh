#!/usr/bin/env bash
# Downloads the genuine NVIDIA packages listed in scripts/nvidia-debs.txt
# from Debian's non-free/contrib components and unpacks each one (dpkg -x)
# under the cache, without touching the system's apt sources or state:
# a private sources list and a private Dir::State::Lists are used.
#
#   scripts/fetch-nvidia-debs.sh [CACHE_DIR]
#
# CACHE_DIR defaults to $IMAGELINT_NVIDIA_DEBS or ~/.cache/imagelint/nvidia-debs.
# IMAGELINT_DEBS_LIST names another package list (the benchmarks' larger ones).
# Layout: CACHE_DIR/debs/*.deb, CACHE_DIR/root/<package>_<suite>/ (unpacked),
#         CACHE_DIR/index.tsv  (package, suite, version, unpacked dir).
# Downloads are cached; a second run only checks that everything is there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-${IMAGELINT_NVIDIA_DEBS:-$HOME/.cache/imagelint/nvidia-debs}}
list=${IMAGELINT_DEBS_LIST:-$here/nvidia-debs.txt}
mkdir -p "$cache/debs" "$cache/root" "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"

# The mirror the system already uses, read from its deb822 sources file.
mirror=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
sources="$cache/apt/sources.list"
: > "$sources"
for suite in $(grep -v '^#' "$list" | sed -n 's@.*/@@p' | sort -u); do
  echo "deb [signed-by=$keyring] $mirror $suite non-free contrib" >> "$sources"
done
apt_opts=(-o "Dir::Etc::SourceList=$sources" -o "Dir::Etc::SourceParts=-"
          -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
          -o "APT::Architecture=amd64" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")

index="$cache/index.tsv"
need_update=1
tmp_index=$(mktemp)
while read -r entry; do
  case "$entry" in ''|'#'*) continue ;; esac
  package=${entry%/*}; suite=${entry#*/}
  dest="$cache/root/${package}_${suite}"
  if [ -f "$dest/.done" ]; then
    printf '%s\t%s\t%s\t%s\n' "$package" "$suite" "$(cat "$dest/.done")" "$dest" >> "$tmp_index"
    continue
  fi
  if [ $need_update = 1 ]; then
    apt-get "${apt_opts[@]}" -qq update >&2
    need_update=0
  fi
  version=$(apt-cache "${apt_opts[@]}" madison "$package" | awk -v s=" $suite/" -F' *[|] *' 'index($3, s) {print $2; exit}')
  if [ -z "$version" ]; then echo "fetch-nvidia-debs: $package not found in $suite" >&2; exit 1; fi
  (cd "$cache/debs" && apt-get "${apt_opts[@]}" -qq download "$package=$version" >&2)
  deb=$(ls "$cache/debs/${package}_$(echo "$version" | sed 's/:/%3a/')_"*.deb | head -n1)
  rm -rf "$dest"; mkdir -p "$dest"
  dpkg-deb -x "$deb" "$dest"
  echo "$version" > "$dest/.done"
  printf '%s\t%s\t%s\t%s\n' "$package" "$suite" "$version" "$dest" >> "$tmp_index"
  echo "fetch-nvidia-debs: $package $version ($suite)" >&2
done < "$list"
mv "$tmp_index" "$index"
echo "$cache"
