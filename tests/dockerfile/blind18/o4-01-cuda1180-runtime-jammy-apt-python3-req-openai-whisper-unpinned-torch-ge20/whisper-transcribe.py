# placeholder: the repository's transcription script (stored, not read)
