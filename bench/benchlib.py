"""Pieces the benchmark scripts share (not a test): measured child processes,
the floors they are compared with, and loopback servers.

A script in bench/<name>/ imports it with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
"""
import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def run_measured(argv, env=None):
    """Runs argv with stdout to /dev/null; returns (wall s, CPU s, max RSS KiB) of it and its children."""
    start = time.monotonic()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed with status {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def oci_layer_blobs(layout):
    """The layer blob files of the first image of an OCI layout, largest first (as imagelint schedules them)."""
    index = json.load(open(os.path.join(layout, "index.json")))
    digest = index["manifests"][0]["digest"].split(":")[1]
    manifest = json.load(open(os.path.join(layout, "blobs", "sha256", digest)))
    blobs = [os.path.join(layout, "blobs", "sha256", layer["digest"].split(":")[1]) for layer in manifest["layers"]]
    return sorted(blobs, key=os.path.getsize, reverse=True)


def igzip_all(blobs, jobs):
    """The decompression floor: igzip -dc of every blob, JOBS at a time; (wall s, CPU s)."""
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda blob: run_measured(["igzip", "-dc", blob]), blobs))
    return time.monotonic() - start, sum(r[1] for r in results)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_registry(work):
    """Debian's docker-registry on a free loopback port, storing under WORK; (process, port)."""
    port = free_port()
    config = os.path.join(work, "registry.yml")
    with open(config, "w") as out:
        out.write(f"version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {work}/registry\n"
                  f"http:\n  addr: 127.0.0.1:{port}\n")
    server = subprocess.Popen(["/usr/bin/docker-registry", "serve", config], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server, port
        except OSError:
            time.sleep(0.1)
    server.kill()
    sys.exit("docker-registry did not start")
