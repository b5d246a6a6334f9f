# placeholder: the repository's fine-tuning script (not read)
