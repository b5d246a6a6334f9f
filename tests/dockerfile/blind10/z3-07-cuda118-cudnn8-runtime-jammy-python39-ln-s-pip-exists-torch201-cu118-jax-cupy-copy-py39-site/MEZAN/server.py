# placeholder: optimization server
