#!/usr/bin/env python3
"""Dockerfile-mode benchmark (not a test): `imagelint scan DOCKERFILE --fleet
examples/fleet.yaml --format json` on every Dockerfile of the field corpus
(tests/dockerfile/corpus) and the differential cases, best of N per file, with
the floor measured in the same run: the same binary doing no Dockerfile work
(`imagelint rules`, which starts and loads the rule file). Scans run with a
cache directory, filled by one run first (the parsed knowledge tables), as in
a CI job whose cache persists; ten files are also timed with --no-cache.
Reports per-file wall time (median, 90th percentile, max) and peak RSS, and
the same files in one process (a gate over a repository's Dockerfiles).

  bench/dockerfile/dockerfile_bench.py --imagelint build/src/cli/imagelint [--runs 5]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(argv, ok=(0, 1)):
    """Wall seconds and max RSS KiB of argv (stdout discarded)."""
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        err = proc.stderr.read().decode(errors="replace")
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        sys.exit(f"{' '.join(argv)} exited {code}: {err}")
    return wall, usage.ru_maxrss


def best(argv, runs, ok=(0, 1)):
    results = [run(argv, ok) for _ in range(runs)]
    return min(r[0] for r in results), max(r[1] for r in results)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagelint", required=True)
    parser.add_argument("--runs", type=int, default=5)
    # Base lookups (engine, registry) are network time bounded by
    # --base-timeout, measured in tests/base_resolution; this measures the
    # Dockerfile work itself, with the knowledge tables answering.
    parser.add_argument("--base-from", default="knowledge")
    args = parser.parse_args()
    files = sorted((ROOT / "tests/dockerfile/corpus").glob("*.Dockerfile"))
    files += sorted((ROOT / "tests/differential/cases").glob("*/Dockerfile"))
    fleet = ROOT / "examples/fleet.yaml"
    cache = tempfile.mkdtemp(prefix="imagelint-dockerfile-bench-")
    common = ["--fleet", str(fleet), "--format", "json", "--no-config", "--quiet", "--base-from", args.base_from]

    floor, floor_rss = best([args.imagelint, "rules"], args.runs)
    # Without any cache: every run parses the knowledge tables (yaml-cpp).
    uncached = [best([args.imagelint, "scan", str(f), *common, "--no-cache"], 1)[0] for f in files[:10]]
    times, peak = [], 0
    for file in files:
        # The first run fills the cache directory (parsed knowledge tables);
        # best of N after it, as in CI where the cache persists.
        run([args.imagelint, "scan", str(file), *common, "--cache-dir", cache])
        wall, rss = best([args.imagelint, "scan", str(file), *common, "--cache-dir", cache], args.runs)
        times.append((wall, file))
        peak = max(peak, rss)
    # A pre-merge gate over a repository's Dockerfiles: one process for all of
    # them, so start-up and the rule file are paid once.
    batch, batch_rss = best([args.imagelint, "scan", *map(str, files), *common, "--cache-dir", cache], args.runs)
    walls = sorted(t for t, _ in times)
    p90 = walls[int(0.9 * (len(walls) - 1))]
    slowest = max(times)
    print(f"files: {len(files)} Dockerfiles, best of {args.runs} each")
    print(f"floor (imagelint rules: start, rule file loaded): {floor * 1000:.1f} ms, {floor_rss // 1024} MiB")
    print(f"scan per file: median {statistics.median(walls) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, "
          f"max {slowest[0] * 1000:.1f} ms ({slowest[1].relative_to(ROOT)})")
    print(f"above the floor: median {(statistics.median(walls) - floor) * 1000:.1f} ms, "
          f"max {(slowest[0] - floor) * 1000:.1f} ms")
    print(f"peak RSS: {peak // 1024} MiB")
    print(f"all {len(files)} files in one process (a gate over a repository): {batch * 1000:.1f} ms, "
          f"{batch * 1000 / len(files):.1f} ms per file, {batch_rss // 1024} MiB")
    print(f"without the knowledge cache (--no-cache, first 10 files): median {statistics.median(uncached) * 1000:.1f} ms")
    context_bench(args, common, cache)


# A Dockerfile with a build context of a few files (docs/dockerfile.md "Build
# context"): a requirements file with an -r include and a constraint file, a
# project's pyproject.toml and a conda environment file, read from the
# Dockerfile's folder; the same Dockerfile with --context pointing at an empty
# folder costs the lookups and no reads.
def context_bench(args, common, cache):
    with tempfile.TemporaryDirectory(prefix="imagelint-context-bench-") as tmp:
        root = pathlib.Path(tmp)
        (root / "reqs").mkdir()
        (root / "reqs" / "base.txt").write_text("--extra-index-url https://download.pytorch.org/whl/cu124\n"
                                                "-r gpu.txt\n-c pins.txt\nfastapi==0.115.0\nuvicorn[standard]\n")
        (root / "reqs" / "gpu.txt").write_text("torch\ntorchvision\nnumpy>=1.26\n")
        (root / "reqs" / "pins.txt").write_text("torch==2.5.1\ntorchvision==0.20.1\n")
        (root / "pyproject.toml").write_text("[project]\nname = \"app\"\ndependencies = [\"requests\", \"pydantic>=2\"]\n")
        (root / "environment.yml").write_text("channels: [conda-forge]\ndependencies:\n  - python=3.11\n  - pip\n")
        (root / ".dockerignore").write_text("**/__pycache__\n*.md\n")
        dockerfile = root / "Dockerfile"
        dockerfile.write_text("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nWORKDIR /app\nCOPY reqs reqs\n"
                              "RUN pip install -r reqs/base.txt\nCOPY . .\nRUN pip install .\n"
                              "RUN conda env update -f environment.yml\n")
        empty = root / "empty"
        empty.mkdir()
        argv = [args.imagelint, "scan", str(dockerfile), *common, "--cache-dir", cache]
        run(argv)
        with_context, _ = best(argv, args.runs)
        without, _ = best(argv + ["--context", str(empty)], args.runs)
        print(f"one Dockerfile reading 6 context files: {with_context * 1000:.1f} ms; "
              f"the same with an empty context: {without * 1000:.1f} ms")


if __name__ == "__main__":
    main()
