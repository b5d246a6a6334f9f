# placeholder: caption/embedding search server
