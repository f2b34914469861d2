module kgen.dev/example/apis

go 1.22

require k8s.io/apimachinery v0.31.0
