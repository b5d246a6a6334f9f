# placeholder script (stored, not read)
