#!/bin/bash
exec /usr/bin/supervisord -n
