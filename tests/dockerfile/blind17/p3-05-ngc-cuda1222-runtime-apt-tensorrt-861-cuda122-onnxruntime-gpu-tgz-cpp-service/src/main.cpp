// placeholder source (stored in the repository, not read)
int main() { return 0; }
