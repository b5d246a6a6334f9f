#!/usr/bin/env bash
# What each knowledge table knows up to, for a maintainer deciding what to
# refresh: per table its rows, its newest row (the highest version where the
# key is one, else the last row), that row's date and the date its sources
# were last consulted (sources.yaml `consulted`; "-" where none records one).
#
#   scripts/knowledge-report.sh [IMAGELINT [DIR|FILE]]
#
# IMAGELINT defaults to build/src/cli/imagelint; DIR|FILE (a bundle) to the
# checkout's rules/knowledge. Reads `imagelint knowledge show -f json`.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/src/cli/imagelint}
bundle=${2:-rules/knowledge}
[ -x "$binary" ] || { echo "knowledge-report: no imagelint binary at $binary (build it, or pass its path)" >&2; exit 2; }
"$binary" knowledge show --knowledge "$bundle" --format json | python3 -c '
import json, sys
show = json.load(sys.stdin)
print("knowledge %s as of %s (%s days old), %s" % (show["revision"], show["date"], show.get("age_days", "?"), show["digest"]))
rows = [("table", "rows", "newest", "dated", "sources", "consulted")]
for kind, t in sorted(show["tables"].items()):
    rows.append((kind, str(t["rows"]), t.get("newest", "") or "-", t.get("released", "") or "-",
                 t.get("source", "") or "-", t.get("consulted", "") or "-"))
widths = [min(max(len(r[i]) for r in rows), 40) for i in range(6)]
for r in rows:
    print("  ".join(c[:40].ljust(widths[i]) for i, c in enumerate(r)).rstrip())
'
