#!/bin/sh
# placeholder for the training launcher
