# placeholder training script (stored in the repository, not read)
