#!/bin/sh
# placeholder entrypoint (stored, not read)
exec "$@"
