#!/bin/bash
# reduced: installs a TransformerEngine-FL wheel (URL or local path) with --no-deps, or builds it from a pinned
# commit of its repository, then imports transformer_engine to verify
set -euo pipefail
ARTIFACT=""; COMMIT=""; PLATFORM="unknown"
while [[ $# -gt 0 ]]; do
  case $1 in
    --artifact) ARTIFACT="$2"; shift 2 ;;
    --commit) COMMIT="$2"; shift 2 ;;
    --platform) PLATFORM="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 1 ;;
  esac
done
[[ "${COMMIT}" =~ ^[0-9a-f]{40}$ ]] || { echo "TE_FL_COMMIT must be a 40-char SHA" >&2; exit 1; }
if [[ "${ARTIFACT}" =~ ^https?:// ]]; then
  curl -fsSL -o /tmp/te_fl.whl "${ARTIFACT}"; ARTIFACT=/tmp/te_fl.whl
fi
pip install --no-deps --no-cache-dir --force-reinstall "${ARTIFACT}"
python3 -c "import transformer_engine"
