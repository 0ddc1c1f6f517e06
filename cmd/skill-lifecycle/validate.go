package main

import (
	"encoding/json"
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
	fs := newFlags("validate", "skill-lifecycle validate", "PATH...", `
PATH is a skill folder, a SKILL.md file, or a folder of skills. Without
--strict the rules are Pi's (warnings; a skill without description or with
broken YAML is not loaded); with --strict every rule of the Agent Skills
specification is an error.`)
	fs.after = "Exit status: 0 all valid, 1 some skill invalid, 2 a usage mistake (a PATH\nthat does not exist: the others are still checked)."
	strict := fs.Bool("strict", false, "apply the Agent Skills reference validator's rules instead of Pi's")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return fs.usageError(stderr, "no PATH given")
	}
	mode := skills.Lenient
	if *strict {
		mode = skills.Strict
	}
	var results []skills.Result
	var missing []error
	for _, p := range fs.Args() {
		if err := statPath("", p); err != nil {
			missing = append(missing, err)
		}
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
	// A PATH that does not exist is a usage mistake, as in the other
	// commands; the others were still checked.
	for _, err := range missing {
		fmt.Fprintf(stderr, "skill-lifecycle validate: %v\n", err)
	}
	switch {
	case len(missing) > 0:
		return exitUsage
	case !valid:
		return exitFailed
	}
	return exitOK
}
