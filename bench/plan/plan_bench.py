#!/usr/bin/env python3
"""Plans over an estate: N images x P pools, facts already cached.

Writes P pools (the example fleet's GPUs, drivers spread over branches) and N
facts documents (copies of the facts of a few Dockerfiles of examples/ and
tests/plan, each with its own digest: what a warm cache hands plan), then
times, in the same run:

  floor: imagelint scan --images-from LIST --fleet FLEET -f json   (one fleet)
  plan:  imagelint plan --images-from LIST --fleet FLEET --change CHANGE -f json

CHANGE is '*: driver=580.95.05' (every pool changes: the worst case) unless
--change gives another ('pool003: driver=580.95.05': plan judges only the pools
a change touches).

and prints wall seconds and peak memory of each (GNU time), and their ratio.

--installation FACTS(.json or .json.gz) takes every image from one facts
document instead: the facts of a working installation read from a real
machine (tests/validation/real-installations/: 161 binaries of PyTorch, CuPy
and JAX), the weight of an image a registry scan hands plan.

  python3 bench/plan/plan_bench.py --imagelint build/src/cli/imagelint --images 10000 --pools 100
"""
import argparse
import copy
import gzip
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPUS = ["NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "Tesla T4", "NVIDIA L4", "NVIDIA GeForce RTX 3090",
        "NVIDIA A10", "Tesla V100-SXM2-16GB", "NVIDIA L40S"]
DRIVERS = ["470.182.03", "525.60.13", "535.104.05", "550.54.15", "560.35.03", "570.86.10", "580.95.05"]
TOOLKITS = ["1.4.0", "1.13.5", "1.16.2", "1.17.4", "1.18.1"]
DOCKERFILES = {
    "compat": "FROM nvidia/cuda:11.3.0-cudnn8-devel-ubuntu20.04\nRUN pip3 install torch==1.12.1+cu113\n",
    "torch": "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124\n",
    "pypi": "FROM nvidia/cuda:10.2-base-ubuntu18.04\nRUN pip3 install torch==1.12.1\n",
    "plain": "FROM nvidia/cuda:12.2.2-base-ubuntu22.04\nCMD [\"nvidia-smi\"]\n",
}


def timed(argv, env):
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + argv, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    last = out.stderr.strip().splitlines()[-1].split()
    return float(last[0]), int(last[1]) // 1024, out.returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imagelint", default=os.path.join(ROOT, "build/src/cli/imagelint"))
    parser.add_argument("--images", type=int, default=10000)
    parser.add_argument("--pools", type=int, default=100)
    parser.add_argument("--change", default="*: driver=580.95.05")
    parser.add_argument("--keep", metavar="DIR", help="write the estate to DIR and keep it (for profiling)")
    parser.add_argument("--installation", metavar="FACTS", help="every image a copy of these facts (.json or .json.gz)")
    args = parser.parse_args()
    env = dict(os.environ, IMAGELINT_BASE_FROM="knowledge")
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or scratch
        os.makedirs(work, exist_ok=True)
        bases = []
        if args.installation:
            opener = gzip.open if args.installation.endswith(".gz") else open
            with opener(args.installation, "rt") as f:
                bases.append(json.load(f))
        for name, text in ({} if args.installation else DOCKERFILES).items():
            path = os.path.join(work, name + ".Dockerfile")
            with open(path, "w") as f:
                f.write(text)
            facts = subprocess.run([args.imagelint, "facts", path], env=env, check=True, capture_output=True, text=True)
            bases.append(json.loads(facts.stdout))
        listing = []
        os.makedirs(os.path.join(work, "facts"), exist_ok=True)
        for i in range(args.images):
            doc = copy.deepcopy(bases[i % len(bases)])
            doc["image"]["digest"] = "sha256:%064x" % i
            path = os.path.join(work, "facts", "image%05d.json" % i)
            with open(path, "w") as f:
                json.dump(doc, f)
            listing.append(path)
        with open(os.path.join(work, "images.txt"), "w") as f:
            f.write("\n".join(listing) + "\n")
        with open(os.path.join(work, "fleet.yaml"), "w") as f:
            f.write("pools:\n")
            for p in range(args.pools):
                f.write('  - name: pool%03d\n    gpu: "%s"\n    driver: "%s"\n    container_toolkit: "%s"\n' %
                        (p, GPUS[p % len(GPUS)], DRIVERS[p % len(DRIVERS)], TOOLKITS[p % len(TOOLKITS)]))
        common = ["--images-from", os.path.join(work, "images.txt"), "--fleet", os.path.join(work, "fleet.yaml"),
                  "-f", "json"]
        scan_s, scan_mb, _ = timed([args.imagelint, "scan"] + common + ["-o", os.path.join(work, "scan.json")], env)
        plan_s, plan_mb, rc = timed([args.imagelint, "plan"] + common + ["--change", args.change, "-o",
                                                                          os.path.join(work, "plan.json")], env)
        with open(os.path.join(work, "plan.json")) as f:
            summary = json.load(f)["summary"]
        print("images %d x pools %d" % (args.images, args.pools))
        print("floor  scan (one fleet): %.1f s, %d MiB peak" % (scan_s, scan_mb))
        print("plan   (two fleets):     %.1f s, %d MiB peak, exit %d" % (plan_s, plan_mb, rc))
        print("ratio  plan/scan: %.2f" % (plan_s / scan_s if scan_s else 0))
        print("summary:", json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
