module example.com/quarrel

go 1.23
