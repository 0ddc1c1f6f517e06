package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// modelReport is explain --model's answer.
type modelReport struct {
	Skill   string         `json:"skill"`
	Current string         `json:"current,omitempty"`
	Model   string         `json:"model,omitempty"` // provider/id, "" when unknown
	Switch  bool           `json:"switch"`
	Cause   models.Cause   `json:"cause"`
	Reports []string       `json:"reports,omitempty"`
	Config  []configReport `json:"configProblems,omitempty"`
}

type configReport struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

// explainModel says which model a.model would run on under cfg's model
// tiers, starting from the --current model. Without a host, prices are
// unknown, so helper downgrades are judged as the engine judges an unpriced
// registry.
func explainModel(stdout, stderr io.Writer, w *host.World, a explainArgs) int {
	found := false
	for _, s := range w.Catalog.Skills {
		if s.Name == a.model {
			found = true
			break
		}
	}
	if !found {
		fmt.Fprintf(stderr, "skill-lifecycle explain: --model %q: no such skill installed\n", a.model)
		return exitUsage
	}
	var current models.Selection
	if a.current != "" {
		ref, level, ok := models.ParseModel(a.current)
		if !ok {
			fmt.Fprintf(stderr, "skill-lifecycle explain: --current %q: want provider/id or provider/id:thinking\n", a.current)
			return 2
		}
		current = models.Selection{Model: ref, Thinking: level}
	}
	ex, diags := lifecycle.ExplainModel(w.Catalog, w.Config, models.Registry{}, a.model, current, nil)
	rep := modelReport{Skill: ex.Skill, Switch: ex.Switch, Cause: ex.Cause, Reports: ex.Reports}
	if a.current != "" {
		rep.Current = current.String()
	}
	if ex.Model.Model.ID != "" {
		rep.Model = ex.Model.String()
	}
	for _, d := range diags {
		rep.Config = append(rep.Config, configReport{Key: d.Key, Message: d.Message})
	}
	if a.asJSON {
		if err := json.NewEncoder(stdout).Encode(rep); err != nil {
			fmt.Fprintf(stderr, "skill-lifecycle explain: %v\n", err)
			return 1
		}
		return 0
	}
	model := rep.Model
	if model == "" {
		model = "the current model"
	}
	verb := "stays on"
	if rep.Switch {
		verb = "switches to"
	}
	fmt.Fprintf(stdout, "skill %s %s %s: %s\n", skills.TerminalText(rep.Skill), verb, skills.TerminalText(model), skills.TerminalText(rep.Cause.Reason))
	for _, r := range rep.Reports {
		fmt.Fprintf(stdout, "  report: %s\n", skills.TerminalText(fmt.Sprint(r)))
	}
	for _, c := range rep.Config {
		fmt.Fprintf(stdout, "  config %s: %s\n", skills.TerminalText(c.Key), skills.TerminalText(c.Message))
	}
	return 0
}
