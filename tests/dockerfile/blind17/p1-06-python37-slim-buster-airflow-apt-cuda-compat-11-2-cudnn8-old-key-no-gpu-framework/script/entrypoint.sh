#!/bin/sh
# placeholder entrypoint (whether stored not checked)
exec airflow "$@"
