#!/usr/bin/env python3
"""Benchmark of verifying each byte once (not a test): cold scans against the floors measured in
the same run, alternating, best of N, with peak RSS.

  gzip OCI image      imagelint facts --no-cache   vs  igzip -dc of every layer, JOBS at a time
  uncompressed save   imagelint facts --no-cache   vs  SHA-256 of its largest layer (OpenSSL, via hashlib)
                      imagelint --no-verify        vs  cuobjdump -lelf on libtorch_cuda.so (warm)
  warm re-scan        imagelint facts (cache)      vs  the cold scan into an empty cache
  registry (--registry)  imagelint facts <loopback ref> --no-cache  vs  skopeo copy docker://... oci:DIR
  >= 8 GB (--big)     imagelint facts --no-cache   MB/s of uncompressed bytes vs the 2 GB image's; peak RSS

  bench/verify/make-images.sh          # builds the inputs once (~/.cache/imagelint/bench-verify)
  bench/verify/verify_bench.py --imagelint build/src/cli/imagelint [--runs 3] [--registry] [--big] [--only gzip,save,warm]
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import igzip_all, oci_layer_blobs, run_measured, start_registry  # noqa: E402


def best(samples):
    return min(samples, key=lambda s: s[0])


def show(name, samples, floor=None, floor_name=""):
    wall, cpu, rss = best(samples)
    text = f"  {name}: wall {wall:.3f} s, CPU {cpu:.2f} s, peak RSS {max(s[2] for s in samples) / 1024:.0f} MiB"
    text += "  (runs: " + " ".join(f"{s[0]:.3f}" for s in samples) + ")"
    if floor:
        text += f"\n    ratio to {floor_name}: {wall / floor:.2f}x"
    print(text, flush=True)
    return wall


def uncompressed_bytes(imagelint, image):
    facts = json.loads(subprocess.check_output([imagelint, "facts", image]))
    return sum(layer["uncompressed_size"] for layer in facts["image"]["layers"])


def largest_member_sha256(save):
    """SHA-256 of the largest layer inside a docker-save tar, read by offset (as imagelint does)."""
    with tarfile.open(save) as tar:
        member = max((m for m in tar.getmembers() if m.isfile()), key=lambda m: m.size)
    start = time.monotonic()
    cpu0 = time.process_time()
    digest = hashlib.sha256()
    with open(save, "rb") as f:
        offset, left = member.offset_data, member.size
        while left:
            chunk = os.pread(f.fileno(), min(left, 1 << 20), offset)
            digest.update(chunk)
            offset += len(chunk)
            left -= len(chunk)
    return time.monotonic() - start, time.process_time() - cpu0, 0, member.size


def save_section(args, imagelint, facts, env):
    save = os.path.join(args.images, "torch-save.tar")
    print(f"\nuncompressed docker save {save}: {os.path.getsize(save) / 1e9:.2f} GB")
    sha, verified, unverified = [], [], []
    largest_member_sha256(save)  # warm: the gzip section may have pushed the save out of the page cache
    for _ in range(args.runs):
        sha.append(largest_member_sha256(save)[:3])
        verified.append(run_measured(facts(save)))
        unverified.append(run_measured(facts(save, "--no-verify")))
    f = show("SHA-256 of its largest layer (hashlib/OpenSSL, pread 1 MiB) (floor)", sha)
    show("imagelint facts --no-cache (verified)", verified, f, "SHA-256 of the largest layer")
    nv = show("imagelint facts --no-cache --no-verify", unverified)
    library = subprocess.check_output(["sh", "-c", f"ls {args.images}/../bench-debs/root/libtorch-cuda-2.6_trixie/"
                                       "usr/lib/x86_64-linux-gnu/libtorch_cuda.so* | head -n1"], text=True).strip()
    # The CUDA toolkit's, else Debian's nvidia-cuda-toolkit as the tests unpack it.
    toolkit = os.path.expanduser("~/.cache/imagelint/nvidia-debs/root/nvidia-cuda-toolkit_trixie/usr/bin")
    cuobjdump = shutil.which("cuobjdump", path=env["PATH"] + ":" + toolkit)
    if library and cuobjdump:
        run_measured([cuobjdump, "-lelf", library])  # warm the file
        cu = [run_measured([cuobjdump, "-lelf", library]) for _ in range(args.runs)]
        c = show(f"cuobjdump -lelf {os.path.basename(library)} ({os.path.getsize(library) / 1e9:.2f} GB, warm)", cu)
        print(f"    imagelint --no-verify on the whole save is {c / nv:.1f}x faster than cuobjdump on the library")


def warm_section(args, imagelint, oci, jobs):
    print("\nwarm re-scan (layer cache)")
    cold, warm = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            with_cache = [imagelint, "facts", oci, *jobs, "--cache-dir", cache]
            cold.append(run_measured(with_cache))
            warm.append(run_measured(with_cache))
    c = show("cold, empty cache", cold)
    show("warm, same image", warm, c, "cold")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagelint", required=True)
    parser.add_argument("--images", default=os.path.expanduser("~/.cache/imagelint/bench-verify"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--registry", action="store_true", help="also the loopback registry against skopeo copy")
    parser.add_argument("--big", action="store_true", help="also the >= 8 GB image")
    parser.add_argument("--only", default="gzip,save,warm",
                        help="comma-separated sections of gzip, save, warm (default: all three)")
    args = parser.parse_args()
    only = set(args.only.split(","))
    imagelint = os.path.abspath(args.imagelint)
    oci = os.path.join(args.images, "torch-oci")
    jobs = ["--jobs", str(args.jobs)]
    facts = lambda image, *extra: [imagelint, "facts", image, "--no-cache", *jobs, *extra]
    env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/local/cuda/bin")
    print(f"cores: {os.cpu_count()}, jobs: {args.jobs}, runs: {args.runs} (best of), "
          f"load average before: {os.getloadavg()[0]:.2f}", flush=True)

    blobs = oci_layer_blobs(oci)
    compressed = sum(os.path.getsize(b) for b in blobs)
    tar_bytes = uncompressed_bytes(imagelint, oci)
    print(f"\ngzip OCI layout {oci}: {len(blobs)} layers, {compressed / 1e9:.2f} GB gzip, "
          f"{tar_bytes / 1e9:.2f} GB uncompressed, largest blob {max(map(os.path.getsize, blobs)) / 1e9:.2f} GB")
    floor, verified, unverified, diff_ids = [], [], [], []
    for _ in range(args.runs if "gzip" in only or args.big else 0):
        floor.append((*igzip_all(blobs, args.jobs), 0))
        verified.append(run_measured(facts(oci)))
        unverified.append(run_measured(facts(oci, "--no-verify")))
        diff_ids.append(run_measured(facts(oci, "--verify-diff-ids")))
    if floor:
        f = show(f"igzip -dc, {args.jobs} at a time (floor)", floor)
        gzip_verified = show("imagelint facts --no-cache (verified)", verified, f, "igzip")
        show("imagelint facts --no-cache --no-verify", unverified, f, "igzip")
        show("imagelint facts --no-cache --verify-diff-ids", diff_ids, f, "igzip")
    if "save" in only:
        save_section(args, imagelint, facts, env)
    if "warm" in only:
        warm_section(args, imagelint, oci, jobs)

    if args.registry:
        with tempfile.TemporaryDirectory(dir=args.images) as work:
            proc, port = start_registry(work)
            try:
                ref = f"127.0.0.1:{port}/bench/torch:1"
                subprocess.check_call(["skopeo", "copy", "-q", "--dest-tls-verify=false", f"oci:{oci}:bench",
                                       f"docker://{ref}"])
                print(f"\nregistry: docker-registry on 127.0.0.1:{port}, {ref}")
                floor, scans = [], []
                for i in range(args.runs):
                    target = os.path.join(work, f"copy{i}")
                    floor.append(run_measured(["skopeo", "copy", "-q", "--src-tls-verify=false", f"docker://{ref}",
                                               f"oci:{target}:x"]))
                    shutil.rmtree(target)
                    scans.append(run_measured(facts(ref)))
                f = show("skopeo copy docker://… oci:DIR (floor)", floor)
                show("imagelint facts REF --no-cache", scans, f, "skopeo copy")
            finally:
                proc.kill()
                proc.wait()

    if args.big:
        big = os.path.join(args.images, "big-oci")
        big_bytes = uncompressed_bytes(imagelint, big)
        big_blobs = oci_layer_blobs(big)
        print(f"\n>= 8 GB: {big}: {len(big_blobs)} layers, {sum(map(os.path.getsize, big_blobs)) / 1e9:.2f} GB gzip, "
              f"{big_bytes / 1e9:.2f} GB uncompressed")
        scans = [run_measured(facts(big)) for _ in range(max(1, args.runs - 1))]
        b = show("imagelint facts --no-cache (verified)", scans)
        small_rate = tar_bytes / gzip_verified / 1e6
        big_rate = big_bytes / b / 1e6
        print(f"    throughput {big_rate:.0f} MB/s uncompressed vs the 2 GB image's {small_rate:.0f} MB/s "
              f"({big_rate / small_rate:.2f})")


if __name__ == "__main__":
    main()
