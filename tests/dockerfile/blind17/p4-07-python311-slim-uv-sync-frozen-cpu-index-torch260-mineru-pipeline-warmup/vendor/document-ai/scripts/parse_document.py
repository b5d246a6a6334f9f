# placeholder: the vendored document-ai parse script (whether stored not checked)
