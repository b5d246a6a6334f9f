# placeholder: the repository's TPU sort script (not read)
