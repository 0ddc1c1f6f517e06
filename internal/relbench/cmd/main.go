// Command relbench prints the relevance figures of every dev pack:
//
//	go run ./internal/relbench/cmd [-v] [-shared=false] [-root DIR]
//
// -v lists each miss with the top three skills and their matched terms.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/skill-lifecycle/skill-lifecycle/internal/relbench"
)

func main() {
	root := flag.String("root", ".", "repository root")
	shared := flag.Bool("shared", true, "include the ML pack of ../shared/corpora")
	verbose := flag.Bool("v", false, "list the misses")
	flag.Parse()
	var reps []relbench.Report
	for _, sp := range relbench.DevPacks(*root, *shared) {
		p, err := relbench.LoadPack(sp.Name, sp.Skills, sp.Cases)
		if err != nil {
			fmt.Fprintln(os.Stderr, "relbench:", err)
			os.Exit(1)
		}
		rep := relbench.Evaluate(p, relbench.Ranker(p), relbench.KeepConfig())
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
