// Command tsgen writes extension/wire.ts, the bridge's TypeScript types for
// the sidecar protocol, from the Go types of package protocol: it reads the
// params and results that wire.go lists by reflection, with every struct
// they refer to, and writes one TypeScript interface per Go struct (JSON
// names, omitempty fields optional, nil slices and pointers as null), a
// union of values per enum type, and the constants. The test fails when
// the committed file differs from what it would write.
//
//	go generate ./...            (or: go run ./internal/tsgen -o extension/wire.ts)
package main

//go:generate go run . -o ../../extension/wire.ts

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "", "write to this file (default: standard output)")
	flag.Parse()
	root, module, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	src, err := generate(theWire(root, module))
	if err != nil {
		fail(err)
	}
	if *out == "" {
		_, err = os.Stdout.Write(src)
	} else {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "tsgen: %v\n", err)
	os.Exit(1)
}
