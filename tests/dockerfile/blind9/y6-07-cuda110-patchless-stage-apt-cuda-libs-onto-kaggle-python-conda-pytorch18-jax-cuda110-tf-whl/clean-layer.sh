#!/bin/bash
# placeholder: clears apt lists and caches
rm -rf /var/lib/apt/lists/* /tmp/* 2>/dev/null || true
