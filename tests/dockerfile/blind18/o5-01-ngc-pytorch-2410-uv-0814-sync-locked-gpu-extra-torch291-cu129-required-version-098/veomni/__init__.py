__version__ = "0.0.0"  # placeholder package (stored in the repository, not read)
