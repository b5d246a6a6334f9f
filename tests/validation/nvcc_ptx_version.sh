#!/usr/bin/env bash
# nvcc_ptx_version.sh FROM TO WORKDIR NVCC ARGS...
#
# Runs nvcc's own compilation steps (as `nvcc -dryrun ARGS` lists them) in
# WORKDIR and, between cicc writing a PTX file and fatbinary packing it,
# rewrites that PTX's `.version FROM` line to `.version TO`: a module whose
# PTX declares an ISA newer than the compiler that made it, as a newer
# toolkit would have written it. Everything else is nvcc's doing.
set -euo pipefail
from=$1 to=$2 work=$3 nvcc=$4
shift 4
cd "$work"
script=$(mktemp "$work/nvcc-steps.XXXXXX")
# -dryrun prints each step as "#$ command"; the variable lines that only
# describe the configuration (INCLUDES=..., LIBRARIES=...) are not commands.
"$nvcc" -dryrun "$@" 2>&1 | sed -n 's/^#\$ //p' |
  grep -vE '^(INCLUDES|SYSTEM_INCLUDES|LIBRARIES|CUDAFE_FLAGS|PTXAS_FLAGS)=' |
  sed 's/^rm /rm -f /' |
  awk -v from="$from" -v to="$to" '
    BEGIN { gsub(/\./, "\\.", from) }
    { print }
    /cicc.* -o "[^"]*\.ptx"$/ {
      match($0, /-o "[^"]*\.ptx"$/)
      ptx = substr($0, RSTART + 4, RLENGTH - 5)
      print "sed -i \"s/^\\.version " from "$/.version " to "/\" \"" ptx "\""
      print "grep -q \"^\\.version " to "$\" \"" ptx "\""
    }' > "$script"
grep -q '^sed -i' "$script" || { echo "nvcc -dryrun listed no cicc step writing PTX" >&2; exit 1; }
bash -e "$script"
