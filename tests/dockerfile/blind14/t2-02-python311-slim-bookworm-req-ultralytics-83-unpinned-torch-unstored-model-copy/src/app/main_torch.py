# placeholder for the API
