# placeholder service module
