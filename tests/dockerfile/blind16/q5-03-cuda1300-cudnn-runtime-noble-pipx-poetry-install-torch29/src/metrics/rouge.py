# placeholder module (stored as src/metrics/rouge.py, not read)
