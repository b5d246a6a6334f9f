// placeholder kernel
