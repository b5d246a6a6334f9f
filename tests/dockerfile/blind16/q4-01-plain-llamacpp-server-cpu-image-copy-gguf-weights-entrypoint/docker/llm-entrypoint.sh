#!/bin/sh
# placeholder entrypoint (its content is not part of the pattern)
exec "$@"
