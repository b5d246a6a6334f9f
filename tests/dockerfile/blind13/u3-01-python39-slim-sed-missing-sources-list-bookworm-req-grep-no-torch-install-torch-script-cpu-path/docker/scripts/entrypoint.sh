#!/bin/sh
# placeholder
exec "$@"
