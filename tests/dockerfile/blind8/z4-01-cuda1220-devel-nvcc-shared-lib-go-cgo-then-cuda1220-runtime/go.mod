module example.com/fletcher

go 1.26
