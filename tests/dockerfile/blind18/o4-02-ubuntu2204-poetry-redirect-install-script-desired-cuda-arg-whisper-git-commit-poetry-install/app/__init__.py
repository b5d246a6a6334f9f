# placeholder: application package (stored, not read)
