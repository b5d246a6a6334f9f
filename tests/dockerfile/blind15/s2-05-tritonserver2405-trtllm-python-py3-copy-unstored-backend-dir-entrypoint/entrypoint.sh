#!/bin/sh
# placeholder: launches the Triton server
exec python3 /opt/scripts/launch_triton_server.py "$@"
