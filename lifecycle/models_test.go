package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

const tiersJSON = `{
  "tiers": {
    "small": {"provider": "p", "model": "small-m", "thinkingLevel": "low"},
    "big":   {"provider": "p", "model": "big-m", "thinkingLevel": "high", "scope": "run"},
    "mid":   {"provider": "p", "model": "mid-m"}
  },
  "helperTierPolicy": %q
}`

// modelCatalog: "triage" is the declared entry; "eda" asks for the big
// tier (run scope); "model" for mid (session scope); "plot" is a helper on
// the small tier; "ship" has no tier.
func modelCatalog() Catalog {
	c := testCatalog()
	tiers := map[string]string{"triage": "small", "eda": "big", "model": "mid", "plot": "small"}
	for i := range c.Skills {
		c.Skills[i].ModelTier = tiers[c.Skills[i].Name]
		if c.Skills[i].Name == "triage" {
			c.Skills[i].Role = skills.RoleEntry
		}
	}
	return c
}

func price(v float64) *float64 { return &v }

var testRegistry = models.NewRegistry([]models.ModelInfo{
	{Provider: "p", ID: "small-m", InputPrice: price(1), OutputPrice: price(5), Reasoning: true},
	{Provider: "p", ID: "mid-m", InputPrice: price(3), OutputPrice: price(15), Reasoning: true},
	{Provider: "p", ID: "big-m", InputPrice: price(5), OutputPrice: price(25), Reasoning: true},
	{Provider: "p", ID: "user-m", InputPrice: price(3), OutputPrice: price(15), Reasoning: true},
})

func sel(id string, th models.ThinkingLevel) models.Selection {
	return models.Selection{Model: models.ModelRef{Provider: "p", ID: id}, Thinking: th}
}

// mstep is one event of a model scenario.
type mstep struct {
	ev     string // "select", "loads", "start", "end", "fail", "reset"
	skills []string
	model  string
}

func mSelect(id string) mstep      { return mstep{ev: "select", model: id} }
func mLoads(names ...string) mstep { return mstep{ev: "loads", skills: names} }
func mEv(ev string) mstep          { return mstep{ev: ev} }
func mFail(id string) mstep        { return mstep{ev: "fail", model: id} }
func loadsEvent(n *int, names []string) Event {
	ls := make([]Load, len(names))
	for i, s := range names {
		*n++
		ls[i] = Load{ID: fmt.Sprintf("c%d", *n), Skill: s, Kind: ByTool}
	}
	return Event{Type: EvLoads, Loads: ls}
}

func (m mstep) event(n *int) Event {
	switch m.ev {
	case "select":
		s := sel(m.model, "")
		return Event{Type: EvModelSelected, Selection: &s}
	case "loads":
		return loadsEvent(n, m.skills)
	case "start":
		return Event{Type: EvRunStart}
	case "end":
		return Event{Type: EvRunEnd}
	case "fail":
		return Event{Type: EvModelFailed, ModelRef: &models.ModelRef{Provider: "p", ID: m.model}, Text: "no API key"}
	case "reset":
		return Event{Type: EvModelReset}
	}
	panic(m.ev)
}

// modelLine writes a model decision compactly: "model p/big-m high",
// "model-restore p/user-m", "model-report", "model-note eda".
func modelLine(d Decision) string {
	switch d.Action {
	case ActModel, ActModelRestore:
		s := fmt.Sprintf("%s %s/%s", d.Action, d.Model.Provider, d.Model.Model)
		if d.Model.Thinking != "" {
			s += " " + string(d.Model.Thinking)
		}
		return s
	case ActModelReport, ActModelNote:
		return fmt.Sprintf("%s %s", d.Action, d.Skill)
	}
	return ""
}

func TestModelTiers(t *testing.T) {
	tests := []struct {
		name    string
		policy  string
		reg     models.Registry
		steps   []mstep
		want    []string // model decisions, in order
		cause   string   // a substring of the first switch's cause
		current string   // the model in use at the end
	}{
		{"session tier switches and stays", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("model"), mEv("end")},
			[]string{"model p/mid-m"}, `tier "mid" from metadata.modelTier`, "mid-m"},
		{"run tier is restored at the end of the run", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("eda"), mSelect("big-m"), mEv("end")},
			[]string{"model p/big-m high", "model-restore p/user-m"}, "this run only", "user-m"},
		{"loads of one message: the last switch wins, the others are notes", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("model", "eda")},
			[]string{"model-note model", "model p/big-m high"}, `tier "big"`, "big-m"},
		{"loading one at a time switches twice", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("model"), mSelect("mid-m"), mLoads("eda")},
			[]string{"model p/mid-m", "model p/big-m high"}, `tier "mid"`, "big-m"},
		{"helper of a working caller downgrades to a cheaper model", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("eda"), mSelect("big-m"), mLoads("plot"), mSelect("small-m"), mEv("end")},
			[]string{"model p/big-m high", "model p/small-m low", "model-restore p/user-m"}, `tier "big"`, "user-m"},
		{"helper under keep never switches", "keep", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("eda"), mSelect("big-m"), mLoads("plot")},
			[]string{"model p/big-m high", "model-note plot"}, `tier "big"`, "big-m"},
		{"helper without prices keeps the model (allow-downgrade)", "allow-downgrade", models.Registry{},
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("eda"), mSelect("big-m"), mLoads("plot")},
			[]string{"model p/big-m high", "model-note plot"}, `tier "big"`, "big-m"},
		{"a helper without a working caller applies its tier", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("plot")},
			[]string{"model p/small-m low"}, `tier "small"`, "small-m"},
		{"the entry skill is not a working caller", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("triage"), mSelect("small-m"), mLoads("plot")},
			[]string{"model p/small-m low", "model-note plot"}, `tier "small"`, "small-m"},
		{"a change by hand cancels the pending restore", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("eda"), mSelect("big-m"), mSelect("mid-m"), mEv("end")},
			[]string{"model p/big-m high", "model-note eda"}, `tier "big"`, "mid-m"},
		{"a failed switch is reported once and the model stays", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("model"), mFail("mid-m"), mLoads("model"), mFail("mid-m")},
			[]string{"model p/mid-m", "model-report ", "model-note model"}, `tier "mid"`, "user-m"},
		{"reset puts back the model from before the first switch", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("model"), mSelect("mid-m"), mEv("reset")},
			[]string{"model p/mid-m", "model-restore p/user-m"}, `tier "mid"`, "user-m"},
		{"a skill without a tier keeps the model", "allow-downgrade", testRegistry,
			[]mstep{mSelect("user-m"), mEv("start"), mLoads("ship")},
			[]string{"model-note ship"}, "", "user-m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := rules.Default()
			c.Models = json.RawMessage(fmt.Sprintf(tiersJSON, tc.policy))
			e := New(modelCatalog(), c)
			if d := e.ModelDiagnostics(); len(d) != 0 {
				t.Fatalf("diagnostics: %v", d)
			}
			e.setRegistry(tc.reg)
			n := 0
			var got []string
			var all []Decision
			for _, st := range tc.steps {
				ds, err := e.Apply(st.event(&n))
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, ds...)
				for _, d := range ds {
					if l := modelLine(d); l != "" {
						got = append(got, l)
					}
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("model decisions (-want +got):\n%s", d)
			}
			for _, d := range all {
				if d.Action == ActModel {
					if !strings.Contains(d.Model.Cause.Reason, tc.cause) {
						t.Errorf("first switch's cause %q lacks %q", d.Model.Cause.Reason, tc.cause)
					}
					break
				}
			}
			if cur := e.ModelState().Current; cur == nil || cur.Model.ID != tc.current {
				t.Errorf("current model %v, want %s", cur, tc.current)
			}
			restored := New(modelCatalog(), c)
			if probs := restored.onRestore(roundTrip(t, all)); len(probs) != 0 {
				t.Fatalf("restore problems: %v", probs)
			}
			if d := cmp.Diff(e.State(), restored.State()); d != "" {
				t.Errorf("restored state differs (-live +restored):\n%s", d)
			}
		})
	}
}

func TestModelConfigDiagnostics(t *testing.T) {
	tests := []struct {
		name   string
		models string
		want   []string // "severity key"
		active bool
	}{
		{"no key", "", nil, false},
		{"valid tiers", fmt.Sprintf(tiersJSON, "keep"), nil, true},
		{"bad policy makes the key invalid", fmt.Sprintf(tiersJSON, "sometimes"), []string{"error models.helperTierPolicy"}, false},
		{"unknown key is a warning", `{"tiers": {"small": {"provider": "p", "model": "small-m"}}, "colour": 1}`, []string{"warning models.colour"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := rules.Default()
			if tc.models != "" {
				c.Models = json.RawMessage(tc.models)
			}
			e := New(modelCatalog(), c)
			var got []string
			for _, d := range e.ModelDiagnostics() {
				if d.File != rules.FileName {
					t.Errorf("diagnostic file %q, want %q", d.File, rules.FileName)
				}
				got = append(got, d.Severity.String()+" "+d.Key)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			e.onModelSelected(sel("user-m", ""))
			e.onRunStart()
			switched := false
			for _, d := range e.onLoad(Load{ID: "a", Skill: "plot", Kind: ByTool}) {
				switched = switched || d.Action == ActModel
			}
			if switched != tc.active {
				t.Errorf("switched = %v, want %v", switched, tc.active)
			}
			// A reload with another config re-parses the key.
			e.setConfig(rules.Default())
			if len(e.ModelDiagnostics()) != 0 {
				t.Errorf("diagnostics survive a reload without models: %v", e.ModelDiagnostics())
			}
		})
	}
}

func TestNoTiersRecordsNoModelState(t *testing.T) {
	e := New(modelCatalog(), rules.Default())
	ds := drive(t, e, seq(runOf(load("a", "eda"), load("b", "plot")), runOf(load("c", "model"))))
	for _, d := range ds {
		if strings.HasPrefix(string(d.Action), "model") {
			t.Errorf("unexpected %s decision without tiers", d.Action)
		}
	}
}

func TestExplainModel(t *testing.T) {
	c := rules.Default()
	c.Models = json.RawMessage(fmt.Sprintf(tiersJSON, "allow-downgrade"))
	tests := []struct {
		name    string
		skill   string
		current string
		callers []string
		reg     models.Registry
		want    string
		switch_ bool
		cause   string
	}{
		{"tiered skill switches", "eda", "user-m", nil, testRegistry, "p/big-m (thinking high)", true, `tier "big"`},
		{"already on the tier's model", "model", "mid-m", nil, testRegistry, "p/mid-m", false, "already on"},
		{"helper of a big caller is cheaper", "plot", "user-m", []string{"eda"}, testRegistry, "p/small-m (thinking low)", true, "cheaper than the caller's p/big-m"},
		{"helper without prices keeps", "plot", "user-m", []string{"eda"}, models.Registry{}, "p/big-m (thinking high)", false, "cannot tell"},
		{"no tier keeps", "ship", "user-m", nil, testRegistry, "p/user-m", false, "no tier"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex, diags := ExplainModel(modelCatalog(), c, tc.reg, tc.skill, sel(tc.current, ""), tc.callers)
			if len(diags) != 0 {
				t.Fatalf("diagnostics %v", diags)
			}
			if ex.Model.String() != tc.want || ex.Switch != tc.switch_ {
				t.Errorf("got %s switch=%v, want %s switch=%v (%s)", ex.Model, ex.Switch, tc.want, tc.switch_, ex.Cause.Reason)
			}
			if !strings.Contains(ex.Cause.Reason, tc.cause) {
				t.Errorf("cause %q lacks %q", ex.Cause.Reason, tc.cause)
			}
		})
	}
}
