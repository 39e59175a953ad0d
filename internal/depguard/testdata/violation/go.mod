module example.com/violation

go 1.22
