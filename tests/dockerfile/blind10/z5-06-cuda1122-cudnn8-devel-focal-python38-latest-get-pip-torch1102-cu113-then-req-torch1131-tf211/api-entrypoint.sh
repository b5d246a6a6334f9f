#!/bin/sh
# placeholder: runs migrations and starts the API server
