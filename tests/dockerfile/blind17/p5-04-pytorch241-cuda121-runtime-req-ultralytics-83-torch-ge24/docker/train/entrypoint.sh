#!/bin/sh
# placeholder entrypoint (stored in the repository, not read)
exec "$@"
