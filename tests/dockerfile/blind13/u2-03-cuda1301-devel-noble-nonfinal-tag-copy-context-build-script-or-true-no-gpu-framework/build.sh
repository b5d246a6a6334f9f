#!/bin/sh
# placeholder for the project build script
exit 0
