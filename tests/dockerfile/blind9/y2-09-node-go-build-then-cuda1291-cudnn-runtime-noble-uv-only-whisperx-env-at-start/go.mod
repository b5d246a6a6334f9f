module example.com/voxtra

go 1.24
