#!/bin/sh
# placeholder
