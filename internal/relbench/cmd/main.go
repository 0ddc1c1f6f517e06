// Command relbench prints the relevance figures of every dev pack:
//
//	go run ./internal/relbench/cmd [-v] [-shared=false] [-root DIR] [-p k1=1.2,generic=1,...]
//
// -v lists each miss with the top three skills and their matched terms; -p
// sets index parameters (the field names of relevance.Params, lower-case)
// instead of the defaults the engine uses.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/internal/relbench"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func main() {
	root := flag.String("root", ".", "repository root")
	shared := flag.Bool("shared", true, "include the ML pack of ../shared/corpora")
	verbose := flag.Bool("v", false, "list the misses")
	set := flag.String("p", "", "index parameters, name=value,...")
	flag.Parse()
	params, custom, err := parse(*set)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relbench:", err)
		os.Exit(2)
	}
	var reps []relbench.Report
	for _, sp := range relbench.DevPacks(*root, *shared) {
		p, err := relbench.LoadPack(sp.Name, sp.Skills, sp.Cases)
		if err != nil {
			fmt.Fprintln(os.Stderr, "relbench:", err)
			os.Exit(1)
		}
		var r rules.Ranker
		if custom {
			r = relbench.RankerWith(p, params)
		} else {
			r = relbench.Ranker(p)
		}
		rep := relbench.Evaluate(p, r, relbench.KeepConfig())
		reps = append(reps, rep)
		if *verbose {
			fmt.Printf("## %s\n", rep.Pack)
			for _, l := range rep.Lines {
				fmt.Println("  " + l)
			}
		}
	}
	fmt.Print(relbench.Table(reps))
}

func parse(set string) (relevance.Params, bool, error) {
	p := relevance.DefaultParams()
	if set == "" {
		return p, false, nil
	}
	fields := map[string]*float64{
		"k1": &p.K1, "b": &p.B, "name": &p.NameWeight, "description": &p.DescriptionWeight,
		"headings": &p.HeadingWeight, "pair": &p.PairWeight, "damping": &p.Damping,
		"generic": &p.Generic, "body": &p.BodyWeight, "bodyb": &p.BodyB, "gww": &p.GenericWordWeight, "namespread": &p.NameSpread,
	}
	for _, kv := range strings.Split(set, ",") {
		k, v, ok := strings.Cut(kv, "=")
		f, known := fields[strings.TrimSpace(k)]
		if !ok || !known {
			return p, false, fmt.Errorf("-p: %q is not name=value with a known name", kv)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return p, false, fmt.Errorf("-p %s: %v", k, err)
		}
		*f = x
	}
	return p, true, p.Validate()
}
