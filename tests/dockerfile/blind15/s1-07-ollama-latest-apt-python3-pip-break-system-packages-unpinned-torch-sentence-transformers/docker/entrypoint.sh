#!/bin/sh
ollama serve & exec uvicorn web.app:app --host 0.0.0.0
