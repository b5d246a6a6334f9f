# placeholder: the repository's run script (stored, not read)
