#!/bin/sh
# placeholder: imports the installed stack
