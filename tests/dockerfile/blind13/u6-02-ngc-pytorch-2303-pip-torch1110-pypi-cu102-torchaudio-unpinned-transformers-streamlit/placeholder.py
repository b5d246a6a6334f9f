# placeholder for the project sources copied whole
