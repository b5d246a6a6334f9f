# placeholder: simulator entry point
