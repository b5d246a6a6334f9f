#!/bin/sh
# placeholder: starts the backend API (uvicorn)
