#!/bin/sh
exec python /opt/src/api_server.py
