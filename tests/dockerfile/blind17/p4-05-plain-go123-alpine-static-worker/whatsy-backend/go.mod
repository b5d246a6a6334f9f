module whatsy

go 1.23
// placeholder (stored in the repository, not read)
