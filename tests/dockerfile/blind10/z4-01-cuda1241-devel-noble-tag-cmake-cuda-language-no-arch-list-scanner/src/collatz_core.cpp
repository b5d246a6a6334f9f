// placeholder
int collatz_core_version() { return 1; }
