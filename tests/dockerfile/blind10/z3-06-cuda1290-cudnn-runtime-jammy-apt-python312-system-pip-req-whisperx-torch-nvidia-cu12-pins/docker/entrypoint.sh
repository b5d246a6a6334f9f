#!/bin/sh
# placeholder: starts the meeting assistant
exec python3 main.py "$@"
