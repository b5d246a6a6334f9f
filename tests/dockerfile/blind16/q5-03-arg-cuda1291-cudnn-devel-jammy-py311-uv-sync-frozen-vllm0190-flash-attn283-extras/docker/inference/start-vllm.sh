#!/bin/sh
# placeholder start script (stored, not read)
exec vllm serve "$@"
