#!/bin/sh
# placeholder: starts vllm serve with the deployment settings
exec vllm serve "$@"
