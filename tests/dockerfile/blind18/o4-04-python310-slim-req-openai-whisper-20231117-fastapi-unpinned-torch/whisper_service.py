# placeholder: the repository's service script (whether stored not checked)
