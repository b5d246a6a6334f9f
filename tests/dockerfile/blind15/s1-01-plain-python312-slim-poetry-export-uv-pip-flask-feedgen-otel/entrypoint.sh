#!/bin/sh
exec gunicorn app:app
