package main

// placeholder (stored in the repository, not read)
func main() {}
