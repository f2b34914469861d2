module example.com/shop/apis

go 1.22
