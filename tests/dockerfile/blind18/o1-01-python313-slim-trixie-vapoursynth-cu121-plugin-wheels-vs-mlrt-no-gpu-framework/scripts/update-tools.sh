#!/usr/bin/env bash
# placeholder: the repository's apt/tool update script (stored, not read)
set -euo pipefail
