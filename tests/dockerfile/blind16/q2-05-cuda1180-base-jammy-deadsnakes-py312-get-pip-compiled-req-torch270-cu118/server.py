# placeholder for the LitServe application (its content is not part of the pattern)
