// placeholder header (stored in the repository, not read)
