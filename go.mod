module github.com/skill-lifecycle/skill-lifecycle

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	github.com/kljensen/snowball v0.10.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	golang.org/x/text v0.44.0
	gopkg.in/yaml.v3 v3.0.1
)

require mvdan.cc/sh/v3 v3.14.1
