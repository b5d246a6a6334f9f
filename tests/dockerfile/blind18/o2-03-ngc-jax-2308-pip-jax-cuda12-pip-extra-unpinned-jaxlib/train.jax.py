# placeholder: the repository's training script (not read)
