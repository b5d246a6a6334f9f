#!/bin/sh
# placeholder script (stored, not read)
