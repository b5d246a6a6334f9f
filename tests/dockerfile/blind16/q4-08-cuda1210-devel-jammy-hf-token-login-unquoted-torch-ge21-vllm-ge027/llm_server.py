# placeholder for the API server (its content is not part of the pattern)
