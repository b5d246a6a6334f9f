# placeholder: the repository's WebSocket server (whether stored not checked)
