#!/bin/sh
# placeholder for the start script
exec boinc
