package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// loadedDecision is one line of `explain --loaded`: what the prompt does to
// one loaded body.
type loadedDecision struct {
	Skill  string     `json:"skill"`
	Keep   bool       `json:"keep"`
	Reason string     `json:"reason"`
	Code   rules.Code `json:"code"`
	// Installed is false for a name no installed skill has.
	Installed bool `json:"installed"`
}

// loadedReport is the whole answer of `explain --loaded`.
type loadedReport struct {
	Prompt      string           `json:"prompt"`
	Decisions   []loadedDecision `json:"decisions"`
	Skipped     string           `json:"skipped,omitempty"`
	Entry       string           `json:"entry,omitempty"`
	EntrySource string           `json:"entrySource,omitempty"`
}

// splitLoaded reads the --loaded value: skill names separated by commas,
// oldest load first; blanks are dropped.
func splitLoaded(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// explainLoaded says what prompt, sent as a user prompt, would do to the
// bodies of loaded (oldest first) in world w (its skills and
// configuration).
func explainLoaded(w *host.World, loaded []string, prompt string) loadedReport {
	installed := map[string]bool{}
	for _, s := range w.Catalog.Skills {
		installed[s.Name] = true
	}
	ex := lifecycle.Explain(w.Catalog, w.Config, loaded, prompt)
	rep := loadedReport{Prompt: prompt, Decisions: []loadedDecision{}, Entry: ex.Entry, EntrySource: ex.EntrySource}
	if ex.Skipped != nil {
		rep.Skipped = ex.Skipped.Text
	}
	for _, v := range ex.Decisions {
		rep.Decisions = append(rep.Decisions, loadedDecision{Skill: v.Skill, Keep: v.Keep, Reason: v.Reason.Text,
			Code: v.Reason.Code, Installed: installed[v.Skill]})
	}
	return rep
}

// writeLoaded prints a report as JSON or as aligned text.
func writeLoaded(w io.Writer, rep loadedReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if rep.Entry != "" {
		fmt.Fprintf(w, "entry skill: %s (%s)\n", skills.TerminalText(rep.Entry), skills.TerminalText(rep.EntrySource))
	}
	if rep.Skipped != "" {
		fmt.Fprintf(w, "prompt not judged: %s\n", skills.TerminalText(rep.Skipped))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, d := range rep.Decisions {
		verb := "keep"
		if !d.Keep {
			verb = "archive"
		}
		name := skills.TerminalText(d.Skill)
		if !d.Installed {
			name += " (not installed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", verb, name, skills.TerminalText(d.Reason))
	}
	return tw.Flush()
}
