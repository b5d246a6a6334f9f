#!/bin/bash
set -e
mkdir -p /app/data/uploads /app/whisperx-env
exec gosu appuser "$@"
