# placeholder for the application script (its content is not part of the pattern)
