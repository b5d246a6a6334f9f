#!/bin/bash
# placeholder: starts the wyoming faster-whisper server with the CUDA device
