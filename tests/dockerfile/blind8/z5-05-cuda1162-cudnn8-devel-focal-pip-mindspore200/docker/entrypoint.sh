#!/bin/bash
exec python3 /usr/local/bin/bs-gpu-demo-runner.py "$@"
