#!/usr/bin/env python3
"""Image-reading benchmark (not a test): `imagelint facts` on a >= 1 GiB image
against `igzip -dc` of the same gzip layers with the same parallelism, in the
same run, alternating, best of N. Reports wall time, the ratio, and the peak
RSS of imagelint (ru_maxrss of the child).

  bench/image_bench.py --imagelint build/src/cli/imagelint [--image DIR] [--jobs 2] [--runs 3]
"""
import argparse
import json
import os
import subprocess

from benchlib import igzip_all, oci_layer_blobs, run_measured


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagelint", required=True)
    parser.add_argument("--image", default=os.path.expanduser("~/.cache/imagelint/bench-image"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    blobs = oci_layer_blobs(args.image)  # largest first, like imagelint's scheduler
    compressed = sum(os.path.getsize(b) for b in blobs)
    facts = json.loads(subprocess.check_output([args.imagelint, "facts", args.image]))
    uncompressed = sum(layer["uncompressed_size"] for layer in facts["image"]["layers"])
    files = sum(layer["entries"] for layer in facts["image"]["layers"])

    # The layer cache would make every run after the first a lookup: bypass it.
    help_text = subprocess.run([args.imagelint, "facts", "--help"], capture_output=True, text=True).stdout
    command = [args.imagelint, "facts", args.image, "--jobs", str(args.jobs)]
    if "--no-cache" in help_text:
        command.append("--no-cache")
    variants = {"verified": command}
    if "--no-verify" in help_text:
        variants["--no-verify"] = command + ["--no-verify"]

    igzip_times, igzip_cpu = [], []
    times = {name: [] for name in variants}
    cpu = {name: [] for name in variants}
    rss = []
    for _ in range(args.runs):
        wall, seconds = igzip_all(blobs, args.jobs)
        igzip_times.append(wall)
        igzip_cpu.append(seconds)
        for name, argv in variants.items():
            wall, seconds, maxrss = run_measured(argv)
            times[name].append(wall)
            cpu[name].append(seconds)
            rss.append(maxrss)
    best_igzip = min(igzip_times)
    print(f"image: {args.image}: {len(blobs)} gzip layers, {files} entries, "
          f"{compressed / 2**20:.0f} MiB compressed, {uncompressed / 2**20:.0f} MiB uncompressed")
    print(f"jobs: {args.jobs}, runs: {args.runs} (best of)")
    print(f"command: {' '.join(command)}")
    print(f"igzip -dc, {args.jobs} at a time: wall {best_igzip:.2f} s, CPU {min(igzip_cpu):.2f} s  (wall runs: "
          + " ".join(f"{t:.2f}" for t in igzip_times) + ")")
    for name in variants:
        best = min(times[name])
        print(f"imagelint facts ({name}): wall {best:.2f} s, CPU {min(cpu[name]):.2f} s  (wall runs: "
              + " ".join(f"{t:.2f}" for t in times[name]) + ")")
        print(f"  ratio to igzip: wall {best / best_igzip:.2f}x, CPU {min(cpu[name]) / min(igzip_cpu):.2f}x"
              " (target <= 1.3x)")
    print(f"imagelint peak RSS: {max(rss) / 1024:.0f} MiB (target < 256 MiB)")


if __name__ == "__main__":
    main()
