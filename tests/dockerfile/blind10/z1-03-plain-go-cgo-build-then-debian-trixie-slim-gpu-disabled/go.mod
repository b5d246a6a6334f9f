module example.com/longbow

go 1.26
