// Command genpack writes a synthetic skill pack (see package gen) for
// measuring the CLI by hand:
//
//	go run ./internal/gen/genpack -n 10000 -seed 1 /tmp/pack10k
//	/usr/bin/time -v skill-lifecycle explain --skills /tmp/pack10k "review the data pipeline"
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
)

func main() {
	n := flag.Int("n", 1000, "number of skills, the router included")
	seed := flag.Uint64("seed", 1, "random seed")
	minBody := flag.Int("min-body", 0, "shortest body in bytes (0: the generator's default)")
	maxBody := flag.Int("max-body", 0, "longest body in bytes (0: the generator's default)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: genpack [-n N] [-seed S] [-min-body B] [-max-body B] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	skills := gen.Pack(gen.Options{N: *n, Seed: *seed, MinBody: *minBody, MaxBody: *maxBody})
	if err := gen.Write(flag.Arg(0), skills); err != nil {
		fmt.Fprintln(os.Stderr, "genpack:", err)
		os.Exit(1)
	}
}
