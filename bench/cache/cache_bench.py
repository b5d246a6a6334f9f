#!/usr/bin/env python3
"""Layer-cache benchmark (not a test): `imagelint facts` on the same image
cold (empty cache), warm (everything cached), and on a second image that
shares all base layers and differs in its top layer; `--no-cache` as the
reference. Best of N for each, wall time; reports warm/cold as a percentage.

  bench/cache/cache_bench.py --imagelint build/src/cli/imagelint [--image DIR] [--runs 3] [--jobs 2]

The image is the image benchmark's OCI layout (bench/make-image-bench.sh,
>= 1 GiB of NVIDIA libraries in six gzip layers). The second image is made
here: same manifest, the last layer replaced by a small new one (blobs are
hard-linked, nothing is copied).
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def blob(layout, digest):
    return os.path.join(layout, "blobs", "sha256", digest.split(":", 1)[1])


def write_blob(layout, data):
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(layout, "blobs", "sha256", digest), "wb") as f:
        f.write(data)
    return "sha256:" + digest, len(data)


def make_second_image(first, out):
    """OCI layout sharing every layer of `first` but the last."""
    os.makedirs(os.path.join(out, "blobs", "sha256"))
    index = json.load(open(os.path.join(first, "index.json")))
    manifest = json.load(open(blob(first, index["manifests"][0]["digest"])))
    config = json.load(open(blob(first, manifest["config"]["digest"])))
    for layer in manifest["layers"][:-1]:
        os.link(blob(first, layer["digest"]), blob(out, layer["digest"]))
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w", format=tarfile.PAX_FORMAT) as tar:
        content = b"second image top layer\n"
        info = tarfile.TarInfo("app/README")
        info.size = len(content)
        tar.addfile(info, io.BytesIO(content))
    raw = tar_bytes.getvalue()
    compressed = gzip.compress(raw, mtime=0)
    digest, size = write_blob(out, compressed)
    manifest["layers"][-1] = {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": digest,
                              "size": size}
    config["rootfs"]["diff_ids"][-1] = "sha256:" + hashlib.sha256(raw).hexdigest()
    config["history"][-1] = {"created_by": "COPY README /app/"}
    config_digest, config_size = write_blob(out, json.dumps(config).encode())
    manifest["config"]["digest"] = config_digest
    manifest["config"]["size"] = config_size
    manifest_digest, manifest_size = write_blob(out, json.dumps(manifest).encode())
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_digest,
             "size": manifest_size, "annotations": {"org.opencontainers.image.ref.name": "second"}}]}, f)
    with open(os.path.join(out, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion":"1.0.0"}')


def run(argv):
    start = time.monotonic()
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.decode()[-2000:]}")
    return wall, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagelint", required=True)
    parser.add_argument("--image", default=os.path.expanduser("~/.cache/imagelint/bench-image"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.image, "index.json")):
        sys.exit(f"missing {args.image}: run bench/make-image-bench.sh")
    work = tempfile.mkdtemp(prefix="imagelint-cache-bench-")
    try:
        second = os.path.join(work, "second")
        make_second_image(args.image, second)
        cache = os.path.join(work, "cache")
        facts = [args.imagelint, "facts", "--jobs", str(args.jobs)]
        results = {"no_cache": [], "cold": [], "warm": [], "shared_bases": []}
        outputs = {}
        for _ in range(args.runs):
            shutil.rmtree(cache, ignore_errors=True)
            wall, out = run(facts + ["--no-cache", args.image])
            results["no_cache"].append(wall)
            outputs["no_cache"] = out
            wall, out = run(facts + ["--cache-dir", cache, args.image])
            results["cold"].append(wall)
            outputs["cold"] = out
            wall, out = run(facts + ["--cache-dir", cache, args.image])
            results["warm"].append(wall)
            outputs["warm"] = out
            wall, _ = run(facts + ["--cache-dir", cache, second])
            results["shared_bases"].append(wall)
        if not (outputs["no_cache"] == outputs["cold"] == outputs["warm"]):
            sys.exit("facts differ between uncached, cold and warm runs")
        size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(cache) for f in fs)
        best = {k: min(v) for k, v in results.items()}
        print(f"image: {args.image} (jobs {args.jobs}, best of {args.runs})")
        for key in ("no_cache", "cold", "warm", "shared_bases"):
            print(f"  {key:13s} {best[key]:8.3f} s   runs: {' '.join(f'{v:.3f}' for v in results[key])}")
        print(f"  warm / cold          {100 * best['warm'] / best['cold']:.2f} %")
        print(f"  shared bases / cold  {100 * best['shared_bases'] / best['cold']:.2f} %")
        print(f"  cold / no-cache      {100 * best['cold'] / best['no_cache']:.1f} % (cost of writing the cache)")
        print(f"  cache size           {size / (1 << 20):.2f} MiB")
        print("  facts identical (no-cache, cold, warm): yes")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
