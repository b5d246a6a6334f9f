#!/bin/bash
# fatbin_bench.sh FATBIN_BENCH [LIBRARY]
# Times the cuda.elf analyzer on a large fatbin library (default: libcublasLt.so.12.4.5.8
# from scripts/fetch-nvidia-debs.sh) against reading the same bytes, and against
# cuobjdump --list-elf (cuobjdump 12.4 from the nvidia-cuda-toolkit package). Best of 3.
set -euo pipefail
bench=$1
debs="${IMAGELINT_NVIDIA_DEBS:-$HOME/.cache/imagelint/nvidia-debs}/root"
library="${2:-$debs/libcublaslt12_trixie/usr/lib/x86_64-linux-gnu/libcublasLt.so.12.4.5.8}"
cuobjdump="$debs/nvidia-cuda-toolkit_trixie/usr/bin/cuobjdump"
[ -f "$library" ] || { echo "missing $library: run scripts/fetch-nvidia-debs.sh" >&2; exit 2; }
cat "$library" > /dev/null   # warm the page cache: every contender reads from memory
"$bench" "$library" --repeat 3
if [ -x "$cuobjdump" ]; then
  best=""
  for run in 1 2 3; do
    start=$(date +%s.%N)
    "$cuobjdump" --list-elf "$library" > /dev/null
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
  done
  printf 'cuobjdump --list-elf: %.3f s\n' "$best"
fi
