module github.com/hookexec/hookexec

go 1.26.8

require github.com/stretchr/testify v1.12.1

require (
	github.com/dlclark/regexp2 v1.12.0 // indirect
	github.com/mattn/go-shellwords v1.0.16 // indirect
	github.com/valyala/fastjson v1.6.10 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
