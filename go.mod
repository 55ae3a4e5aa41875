module github.com/hookexec/hookexec

go 1.26.8

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/dlclark/regexp2 v1.12.0
	github.com/mattn/go-shellwords v1.0.16
	github.com/stretchr/testify v1.12.1
	github.com/valyala/fastjson v1.6.10
	go.yaml.in/yaml/v3 v3.0.6
)

require mvdan.cc/sh/v3 v3.14.1

require golang.org/x/sys v0.49.0

require github.com/pelletier/go-toml/v2 v2.4.3
