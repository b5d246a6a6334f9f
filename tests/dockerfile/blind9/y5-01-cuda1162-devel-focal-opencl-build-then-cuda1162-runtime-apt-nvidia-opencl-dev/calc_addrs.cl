// placeholder kernel source
