#!/bin/bash
# placeholder: the repository's entrypoint (stored, not read)
exec "$@"
