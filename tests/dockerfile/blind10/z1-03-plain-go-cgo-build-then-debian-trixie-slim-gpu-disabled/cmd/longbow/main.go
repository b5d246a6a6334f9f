package main

// placeholder for the vector store server
func main() {}
