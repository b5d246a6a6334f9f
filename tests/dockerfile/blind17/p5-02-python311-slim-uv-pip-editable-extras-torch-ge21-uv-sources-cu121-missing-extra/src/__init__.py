# placeholder package (stored in the repository, not read)
