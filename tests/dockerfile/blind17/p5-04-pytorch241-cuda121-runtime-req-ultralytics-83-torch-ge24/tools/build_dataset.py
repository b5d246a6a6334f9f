# placeholder (stored in the repository, not read)
