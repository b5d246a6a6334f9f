# placeholder for the wrapper application
