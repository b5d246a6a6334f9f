# placeholder package
