#!/bin/bash
# placeholder for the offline Anaconda installer (not stored)
mkdir -p /opt/conda
