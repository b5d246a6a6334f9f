#!/bin/bash
# placeholder for the layer clean-up script
rm -rf /tmp/* /var/lib/apt/lists/*
