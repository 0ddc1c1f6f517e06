package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func init() {
	register(command{name: "validate", summary: "check skills leniently (as Pi) or --strict (as the reference validator)", run: runValidate})
}

type validateResultJSON struct {
	Path        string     `json:"path"`
	Name        string     `json:"name,omitempty"`
	OK          bool       `json:"ok"`
	Diagnostics []diagJSON `json:"diagnostics"`
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strict := fs.Bool("strict", false, "apply the Agent Skills reference validator's rules instead of Pi's")
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: skill-lifecycle validate [--strict] [--json] PATH...")
		fmt.Fprintln(fs.Output(), "\nPATH is a skill folder, a SKILL.md file, or a folder of skills. Without --strict the")
		fmt.Fprintln(fs.Output(), "rules are Pi's (warnings; a skill without description or with broken YAML is not")
		fmt.Fprintln(fs.Output(), "loaded); with --strict every rule of the Agent Skills specification is an error.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 all valid, 1 some skill invalid, 2 usage error.")
		fmt.Fprintln(fs.Output(), "\nflags:")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "skill-lifecycle validate: no PATH given")
		fs.Usage()
		return 2
	}
	mode := skills.Lenient
	if *strict {
		mode = skills.Strict
	}
	var results []skills.Result
	for _, p := range fs.Args() {
		results = append(results, skills.Check(p, mode)...)
	}
	valid := true
	for _, r := range results {
		valid = valid && r.OK
	}
	if *asJSON {
		out := struct {
			Mode    string               `json:"mode"`
			Valid   bool                 `json:"valid"`
			Results []validateResultJSON `json:"results"`
		}{Mode: mode.String(), Valid: valid}
		for _, r := range results {
			j := validateResultJSON{Path: r.Path, OK: r.OK, Diagnostics: toDiagJSON(r.Diagnostics)}
			if r.Skill != nil {
				j.Name = r.Skill.Name
			}
			out.Results = append(out.Results, j)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "skill-lifecycle validate: %v\n", err)
			return 1
		}
	} else {
		invalid := 0
		for _, r := range results {
			status := "ok     "
			if !r.OK {
				status = "INVALID"
				invalid++
			}
			name := ""
			if r.Skill != nil {
				name = " (" + skills.TerminalText(r.Skill.Name) + ")"
			}
			fmt.Fprintf(stdout, "%s %s%s\n", status, skills.TerminalText(r.Path), name)
			for _, d := range r.Diagnostics {
				fmt.Fprintf(stdout, "    %s\n", d)
			}
		}
		fmt.Fprintf(stdout, "%d checked, %d invalid (%s)\n", len(results), invalid, mode)
	}
	if !valid {
		return 1
	}
	return 0
}
