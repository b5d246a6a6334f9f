# placeholder for the FastAPI application (its content is not part of the pattern)
