# placeholder: the repository's Whisper server (whether stored not checked)
