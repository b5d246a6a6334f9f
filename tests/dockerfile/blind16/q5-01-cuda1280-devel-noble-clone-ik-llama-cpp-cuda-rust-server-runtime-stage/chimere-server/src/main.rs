// placeholder source (stored in the repository, not read)
