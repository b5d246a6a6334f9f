# placeholder: ptychography front-end
