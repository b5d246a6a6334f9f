# placeholder for the stored build hook
