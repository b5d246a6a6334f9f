#!/usr/bin/env python3
"""Figures of the Dockerfile gate on a corpus directory, through the CLI.

  bench/dockerfile/corpus_figures.py BUILD/src/cli/imagelint tests/dockerfile/blind [--knowledge-base]

The directory holds *.Dockerfile, fleet.yaml and expected.txt (cells p, f, F, ?,
or `plain`; see tests/dockerfile/blind/README.md). Each file is scanned once
(`imagelint FILE --fleet fleet.yaml -f json --base-from knowledge`, offline) and
every cell compared with its truth. Printed: exit 2s, plain services not clean,
missed certain failures, false alarms, and undecided cells where the truth is
decided (verdict neither pass nor fail while public facts decide it), with the
file and pool of each. The same figures as tests/dockerfile/corpus_test.cpp,
from any imagelint binary (so a build of an older commit can be measured too).
"""
import json
import os
import subprocess
import sys


def expected(directory):
    out = {}
    with open(os.path.join(directory, "expected.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                out[line[0]] = line[1:]
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, directory = sys.argv[1], sys.argv[2]
    truth = expected(directory)
    fleet = os.path.join(directory, "fleet.yaml")
    figures = dict(files=0, errors=0, plain=0, plain_noisy=0, cells=0, decidable=0, missed=0,
                   false_alarms=0, undecided=0)
    for name in sorted(n for n in os.listdir(directory) if n.endswith(".Dockerfile")):
        figures["files"] += 1
        cells = truth.get(name)
        if cells is None:
            print(f"no truth: {name}")
            continue
        run = subprocess.run([binary, os.path.join(directory, name), "--fleet", fleet, "-f", "json",
                              "--base-from", "knowledge", "--fail-on", "none"],
                             capture_output=True, text=True, timeout=60)
        if run.returncode == 2:
            figures["errors"] += 1
            figures["cells"] += 9
            print(f"exit 2: {name}: {run.stderr.strip()[:300]}")
            continue
        image = json.loads(run.stdout)["images"][0]
        verdicts = image["verdicts"]
        figures["cells"] += len(verdicts)
        if cells == ["plain"]:
            figures["plain"] += 1
            figures["decidable"] += len(verdicts)
            noisy = [f["rule"] for f in image["findings"] if f["severity"] != "note"]
            if noisy or any(v["status"] != "pass" for v in verdicts) or len(image["findings"]) > 1:
                figures["plain_noisy"] += 1
                print(f"plain not clean: {name}: {noisy}")
            continue
        for want, verdict in zip(cells, verdicts):
            if want == "?":
                continue
            figures["decidable"] += 1
            status = verdict["status"]
            if status == "undecided":  # warn is decided: it runs, with a warning
                figures["undecided"] += 1
                print(f"undecided: {name} on {verdict['pool']} ({status}, {verdict.get('undetermined')})")
            if want in ("f", "F") and status != "fail":
                figures["missed"] += 1
                print(f"missed failure: {name} on {verdict['pool']} ({status})")
            if want == "p" and status == "fail":
                figures["false_alarms"] += 1
                print(f"false alarm: {name} on {verdict['pool']}: {verdict.get('rules')}")
    decided = figures["decidable"] - figures["undecided"]
    ratio = decided / figures["decidable"] if figures["decidable"] else 1.0
    print(json.dumps(figures))
    print(f"{figures['files']} files, {figures['cells']} cells: exit 2 {figures['errors']}, plain not clean "
          f"{figures['plain_noisy']}/{figures['plain']}, missed failures {figures['missed']}, false alarms "
          f"{figures['false_alarms']}, undecided where decidable {figures['undecided']}/{figures['decidable']} "
          f"(decided {ratio:.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
