#!/usr/bin/env python3
"""Shared layer cache benchmark (not a test): a CI fleet of RUNNERS processes,
each with its own empty local cache, scans IMAGES images built on 2 bases,
once without a shared cache and once with one Redis (Debian's redis-server on
loopback, started here). Counts the layers analysed in total (work) against
the unique layers, and times one runner's cold scan of an image whose layers
another runner has already stored against a true cold scan.

Work counts: without Redis, every scanned layer leaves one entries.cbor in its
runner's local cache; with Redis, every scanned layer is stored with one SET
per cache file (Redis INFO commandstats), and the files per layer are
(keys / layers) of what Redis holds.

With --registry the images are pushed (skopeo) to Debian's docker-registry on
loopback and the runners scan them there: the case a shared cache is for, since
a registry layer served from the cache needs no blob download, while a local
layout's blob is still hashed against its digest on every hit.

  bench/shared-cache/shared_cache_bench.py --imagelint build/src/cli/imagelint [--base-mib 32] [--registry]
      [--debs ~/.cache/imagelint/nvidia-debs/root]
"""
import argparse
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import free_port, start_registry  # noqa: E402


def layer_tar(files):
    """An uncompressed layer: {path: bytes} as a tar; its bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, data in sorted(files.items()):
            info = tarfile.TarInfo(path)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def put_blob(blobs, data):
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(blobs, digest)
    if not os.path.exists(path):
        with open(path, "wb") as out:
            out.write(data)
    return "sha256:" + digest


def write_layout(directory, layers):
    """An OCI layout whose layer blobs are hard links into a shared pool."""
    blobs = os.path.join(directory, "blobs", "sha256")
    os.makedirs(blobs)
    descriptors, diff_ids = [], []
    for pool_path, digest, size, diff_id, media_type in layers:
        os.link(pool_path, os.path.join(blobs, digest[7:]))
        descriptors.append({"mediaType": media_type, "digest": digest, "size": size})
        diff_ids.append(diff_id)
    config = json.dumps({"architecture": "amd64", "os": "linux",
                         "config": {"Env": ["PATH=/usr/bin:/bin"]},
                         "rootfs": {"type": "layers", "diff_ids": diff_ids}}).encode()
    config_digest = put_blob(blobs, config)
    manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                           "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                                      "digest": config_digest, "size": len(config)},
                           "layers": descriptors}).encode()
    manifest_digest = put_blob(blobs, manifest)
    with open(os.path.join(directory, "oci-layout"), "w") as out:
        out.write('{"imageLayoutVersion": "1.0.0"}')
    with open(os.path.join(directory, "index.json"), "w") as out:
        json.dump({"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                                                      "digest": manifest_digest, "size": len(manifest)}]}, out)


def make_images(root, count, base_mib, debs):
    rng = random.Random(18)
    pool = os.path.join(root, "pool")
    os.makedirs(pool)

    def pooled(files):
        data = layer_tar(files)
        digest = put_blob(pool, data)
        return os.path.join(pool, digest[7:]), digest, len(data), digest, "application/vnd.oci.image.layer.v1.tar"

    def pooled_packages(packages):
        """A gzip'd layer of unpacked Debian packages (tar | igzip -3, as bench/make-image-bench.sh)."""
        tar = os.path.join(root, "layer.tar")
        args = [arg for package in packages for arg in ("-C", os.path.join(debs, package), ".")]
        subprocess.run(["tar", "--sort=name", "--owner=0", "--group=0", "--mtime=@0", "--exclude=./.done", "-cf", tar,
                        *args], check=True)
        diff_id = "sha256:" + hashlib.sha256(open(tar, "rb").read()).hexdigest()
        subprocess.run(["igzip", "-3", "-f", tar], check=True)
        data = open(tar + ".gz", "rb").read()
        os.unlink(tar + ".gz")
        digest = put_blob(pool, data)
        return os.path.join(pool, digest[7:]), digest, len(data), diff_id, "application/vnd.oci.image.layer.v1.tar+gzip"

    bases = []
    if debs:  # two CUDA library bases from genuine packages
        bases.append(pooled_packages(["libcublas12_trixie", "libcublaslt12_trixie"]))
        bases.append(pooled_packages(["libcufft11_trixie", "libcusparse12_trixie"]))
    for name in ("cuda-base", "torch-base")[len(bases):]:
        files = {"etc/os-release": b"ID=debian\n"}
        for i in range(8):
            files[f"usr/lib/{name}/lib{i}.so.1"] = rng.randbytes(base_mib * 1024 * 1024 // 8)
        bases.append(pooled(files))
    images = []
    for n in range(count):
        app = pooled({f"app/{n}/main.py": f"print({n})\n".encode() * 100, f"app/{n}/model.bin": rng.randbytes(65536)})
        directory = os.path.join(root, f"image-{n:02d}")
        write_layout(directory, [bases[n % 2], app])
        images.append(directory)
    return images, 2 + count


def push(images, port):
    """Pushes each layout; returns the references to scan."""
    refs = []
    for n, directory in enumerate(images):
        ref = f"127.0.0.1:{port}/bench/image-{n:02d}:1"
        subprocess.run(["skopeo", "copy", "-q", "--dest-tls-verify=false", f"oci:{directory}", f"docker://{ref}"],
                       check=True)
        refs.append(ref)
    return refs


def redis_cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True, check=True).stdout


def scan(imagelint, image, cache_dir, backend):
    argv = [imagelint, "scan", image, "-f", "json", "-o", os.devnull, "--cache-dir", cache_dir, "--no-progress"]
    if backend:
        argv += ["--cache-backend", backend]
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode not in (0, 1) or "warning" in done.stderr:
        sys.exit(f"{' '.join(argv)}: exit {done.returncode}\n{done.stderr}")
    return time.monotonic() - start


def fleet(imagelint, images, runners, root, backend):
    """RUNNERS processes at a time, each runner its share of the images in turn, with its own cache."""
    caches = [os.path.join(root, f"cache-{backend and 'redis' or 'local'}-{r}") for r in range(runners)]

    share = (len(images) + runners - 1) // runners

    def runner(r):  # consecutive images: every runner meets both bases
        for image in images[r * share:(r + 1) * share]:
            scan(imagelint, image, caches[r], backend)

    with ThreadPoolExecutor(runners) as pool:
        list(pool.map(runner, range(runners)))
    return caches


def entries_files(caches):
    return sum(name == "entries.cbor" for cache in caches for _, _, names in os.walk(cache) for name in names)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagelint", required=True)
    parser.add_argument("--images", type=int, default=20)
    parser.add_argument("--runners", type=int, default=4)
    parser.add_argument("--base-mib", type=int, default=32)
    parser.add_argument("--registry", action="store_true", help="scan the images from a loopback docker-registry")
    parser.add_argument("--debs", default="", help="bases from these unpacked NVIDIA packages (scripts/fetch-nvidia-debs.sh's "
                        "root/) instead of random bytes: realistic cold scans (CUDA libraries with fatbins)")
    args = parser.parse_args()
    registry = None
    with tempfile.TemporaryDirectory(prefix="imagelint-shared-cache-") as root:
        images, unique = make_images(root, args.images, args.base_mib, args.debs)
        if args.registry:
            registry, registry_port = start_registry(root)
            images = push(images, registry_port)
        local = entries_files(fleet(args.imagelint, images, args.runners, root, ""))

        port = free_port()
        server = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                                   "--appendonly", "no", "--dir", root], stdout=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    if redis_cli(port, "PING").strip() == "PONG":
                        break
                except subprocess.CalledProcessError:
                    pass
                time.sleep(0.05)
            backend = f"redis://127.0.0.1:{port}"
            fleet(args.imagelint, images, args.runners, root, backend)
            stats = redis_cli(port, "INFO", "commandstats")
            sets = next(int(part.split("=")[1]) for line in stats.splitlines() if line.startswith("cmdstat_set:")
                        for part in line.split(":")[1].split(",") if part.startswith("calls="))
            keys = int(redis_cli(port, "DBSIZE").strip())
            stored_layers = len([k for k in redis_cli(port, "--scan", "--pattern", "*:entries.cbor").split() if k])
            files_per_layer = keys // stored_layers
            shared = sets // files_per_layer

            # A true cold scan (empty Redis, empty local cache) against a runner's
            # cold scan of another image of the same base, after one image went to Redis.
            # Best of 3, each with an empty Redis and empty local caches.
            colds, serveds = [], []
            for attempt in range(3):
                redis_cli(port, "FLUSHALL")
                colds.append(scan(args.imagelint, images[0], os.path.join(root, f"cold{attempt}"), backend))
                serveds.append(scan(args.imagelint, images[2], os.path.join(root, f"served{attempt}"), backend))
            cold, served = min(colds), min(serveds)
        finally:
            server.kill()
            server.wait()
            if registry:
                registry.kill()
                registry.wait()
    print(json.dumps({"source": "registry" if args.registry else "oci-layout",
                      "bases": "debian packages" if args.debs else f"{args.base_mib} MiB random bytes",
                      "images": args.images, "runners": args.runners, "unique_layers": unique,
                      "layers_analysed_local_only": local, "layers_analysed_with_redis": shared,
                      "cache_files_per_layer": files_per_layer,
                      "cold_scan_s": round(cold, 3), "served_from_redis_s": round(served, 3),
                      "served_over_cold": round(served / cold, 3)}, indent=2))


if __name__ == "__main__":
    main()
