#!/bin/bash
# placeholder
exec "$@"
