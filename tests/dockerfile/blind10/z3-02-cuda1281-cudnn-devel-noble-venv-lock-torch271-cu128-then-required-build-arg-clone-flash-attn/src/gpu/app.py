# placeholder: video understanding service
