# placeholder script (stored in the repository, not read)
