#!/usr/bin/env bash
# The GPU validation run (docs/probe.md "The project's own validation"):
# `imagelint probe --mode direct` on every scenario of tests/validation, on a
# GPU machine, compared with the observations recorded in
# tests/validation/observed/, written as a section of docs/VALIDATION.md.
#
#   validation/run-on-gpu.sh prepare [BUILD]   # here (no GPU): scenarios + imagelint
#                                              # -> validation/gpu-bundle.tar.xz (< 64 MiB)
#   validation/run-on-gpu.sh run [BUNDLE]      # on the GPU machine (< 5 min): writes
#                                              # $OUT (or validation/out)/{run.tsv,section.md,probe/*.json}
#   validation/run-on-gpu.sh merge DIR         # here: DIR/section.md into docs/VALIDATION.md
#
# The device machine gets the working tree plus the bundle (run's `carry`):
#   run(command="validation/run-on-gpu.sh run", carry=["validation/gpu-bundle.tar.xz"], timeout_s=420)
# imagelint travels with the shared libraries it was linked against and this
# host's loader, so the GPU machine needs no package of ours; the probe runs
# in each scenario's own loader, as it would in any image.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
bundle_dir="$here/gpu-bundle"
bundle="$here/gpu-bundle.tar.xz"

prepare() {
  local build=${1:-$repo/build}
  [ -x "$build/src/cli/imagelint" ] && [ -x "$build/probe/imagelint-probe" ] ||
    { echo "run-on-gpu: build imagelint and imagelint-probe in $build first" >&2; exit 2; }
  [ -x "$build/tests/validation/test_validation" ] || { echo "run-on-gpu: build test_validation first" >&2; exit 2; }
  rm -rf "$bundle_dir" && mkdir -p "$bundle_dir/bin" "$bundle_dir/lib"
  # The scenarios, built from genuine parts by the validation suite itself.
  CI=true IMAGELINT_VALIDATION_EXPORT="$bundle_dir/scenarios" \
    "$build/tests/validation/test_validation" --test-case='*batch*' >/dev/null
  # Identical files (every scenario's glibc, the shared libcuda copies) become hard links: tar keeps one.
  python3 - "$bundle_dir/scenarios" <<'PY'
import hashlib, os, sys
seen = {}
for top, _, files in os.walk(sys.argv[1]):
    for name in files:
        path = os.path.join(top, name)
        if os.path.islink(path) or os.path.getsize(path) < 65536: continue
        digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if digest in seen and not os.path.samefile(seen[digest], path):
            os.unlink(path); os.link(seen[digest], path)
        seen.setdefault(digest, path)
PY
  cp "$build/src/cli/imagelint" "$build/probe/imagelint-probe" "$bundle_dir/bin/"
  ldd "$build/src/cli/imagelint" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}' | while read -r lib; do
    cp -L "$lib" "$bundle_dir/lib/"
  done
  cp "$repo"/tests/validation/observed/results*.tsv "$bundle_dir/"
  # GNU tar stores the scenarios' shared files (hard links) once.
  tar -C "$here" -cf - gpu-bundle | xz -T2 -6 > "$bundle"
  rm -rf "$bundle_dir"
  local size; size=$(stat -c %s "$bundle")
  echo "run-on-gpu: $bundle, $((size / 1048576)) MiB"
  [ "$size" -le $((64 * 1048576)) ] || { echo "run-on-gpu: larger than the 64 MiB a device call carries" >&2; exit 2; }
}

run() {
  local from=${1:-$bundle} out=${OUT:-$here/out}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  xz -dc "$from" | tar -C "$work" -xf -
  local b="$work/gpu-bundle" loader
  loader=$(ls "$b"/lib/ld-linux-* | head -1)
  mkdir -p "$out/probe"
  # imagelint through its own loader and libraries; its data from this checkout.
  il() {
    IMAGELINT_RULES_DIR="$repo/rules" IMAGELINT_KNOWLEDGE_DIR="$repo/rules/knowledge" IMAGELINT_DOCS_DIR="$repo/docs" \
      IMAGELINT_PROBE="$b/bin/imagelint-probe" XDG_CACHE_HOME="$work/cache" \
      "$loader" --library-path "$b/lib" "$b/bin/imagelint" "$@"
  }
  nvidia-smi -q -x > "$out/nvidia-smi.xml" 2>/dev/null || true
  printf 'scenario\tpredicted\tobserved\tmode_codes\tfirst_call\tlibcuda_loaded\trecorded\treproduces\tprobe_status\n' > "$out/run.tsv"
  for dir in "$b"/scenarios/*/; do
    local name; name=$(basename "$dir")
    local args=(probe "rootfs:$dir" --mode direct --timeout 60 -f json)
    [ -f "$dir/app/kernel.fatbin" ] && args+=(--fatbin /app/kernel.fatbin)
    set +e
    il "${args[@]}" > "$out/probe/$name.json" 2> "$out/probe/$name.err"
    local rc=$?
    set -e
    python3 - "$out/probe/$name.json" "$name" "$rc" "$b" >> "$out/run.tsv" <<'PY'
import csv, json, sys
path, name, rc, bundle = sys.argv[1:]
recorded = {}
for f in ("results.tsv", "results-batch2.tsv"):
    for row in csv.DictReader(open(f"{bundle}/{f}"), delimiter="\t"):
        recorded[row["scenario"]] = row["observed_code"]
try:
    r = json.load(open(path))
except Exception:
    print(f"{name}\t-\t-\t-\t-\t-\t{recorded.get(name, '-')}\tno\terror (exit {rc})"); sys.exit()
check = (r.get("checks") or [{}])[0]
runs = r.get("runs", [])
codes = "/".join(f'{x["mode"]}={x["outcome"]["code"]}' for x in runs)
libcuda = next((f for x in runs[:1] for f in x["loaded"] if f.split("/")[-1].startswith("libcuda.so")), "-")
seen = check.get("observed", "-")
rec = recorded.get(name, "-")
same = "yes" if str(seen) == rec and all(str(x["outcome"]["code"]) == rec for x in runs) else "no"
print(f'{name}\t{check.get("predicted", "-")}\t{seen}\t{codes}\t{check.get("api") or "-"}\t{libcuda}\t{rec}\t{same}\t{r.get("status")}')
PY
  done
  python3 - "$out" <<'PY' > "$out/section.md"
import csv, json, sys, glob, datetime
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/run.tsv"), delimiter="\t"))
host = {}
for p in sorted(glob.glob(f"{out}/probe/*.json")):
    try: host = json.load(open(p))["host"]; break
    except Exception: pass
same = sum(r["reproduces"] == "yes" for r in rows)
agree = sum(r["probe_status"] == "match" for r in rows)
print(f'## Run of {datetime.date.today()}: `imagelint probe --mode direct`, {host.get("gpu", "?")}, driver {host.get("driver", "?")}\n')
print(f'Written by `validation/run-on-gpu.sh` on host `{host.get("name", "?")}`. Each scenario of `tests/validation`, '
      f'rebuilt from genuine parts, run through `imagelint probe` (the C probe in the scenario\'s own loader, the host\'s '
      f'driver libraries after the image\'s `LD_LIBRARY_PATH`; lazy and eager module loading). Observed = recorded: '
      f'{same} of {len(rows)}; prediction = observation: {agree} of {len(rows)}.\n')
print("| scenario | predicted | observed (lazy/eager) | first failing call | libcuda loaded | recorded 2026-11-27 | reproduces |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print(f'| {r["scenario"]} | {r["predicted"]} | {r["mode_codes"]} | {r["first_call"]} | `{r["libcuda_loaded"]}` | {r["recorded"]} | {r["reproduces"]} |')
PY
  cat "$out/section.md"
}

merge() {
  local from=${1:?"merge DIR (the run's output)"}
  python3 - "$from/section.md" "$repo/docs/VALIDATION.md" <<'PY'
import sys
section, target = open(sys.argv[1]).read().strip() + "\n\n", sys.argv[2]
text = open(target).read()
marker = "\n## Run of 2026-11-27"
at = text.find(marker)
at = at + 1 if at >= 0 else len(text)
open(target, "w").write(text[:at] + section + text[at:])
PY
  echo "run-on-gpu: added the run to docs/VALIDATION.md"
}

case "${1:-}" in
  prepare) shift; prepare "$@" ;;
  run) shift; run "$@" ;;
  merge) shift; merge "$@" ;;
  *) sed -n '2,17p' "$0"; exit 2 ;;
esac
