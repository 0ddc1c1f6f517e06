package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// recorder is a Sink that keeps the records.
type recorder struct{ recs []lifecycle.Decision }

func (r *recorder) Record(d lifecycle.Decision) { r.recs = append(r.recs, d) }
func (r *recorder) Notify(string, string)       {}
func (r *recorder) SetModel(p SetModelParams)   {}
func (r *recorder) Line(LineParams)             {}
func (r *recorder) raw(t *testing.T) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(r.recs))
	for i, d := range r.recs {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// gateWorld is two skills under cfg (changed by mod), without files: the
// gate and the engine need only the catalog.
func gateWorld(mod func(*rules.Config)) *World {
	cfg := rules.Default()
	cfg.MinKeep = 0
	if mod != nil {
		mod(&cfg)
	}
	ss := []skills.Skill{
		{Name: "eda", Description: "Explore a dataset: distributions, missing values, correlations."},
		{Name: "deploy", Description: "Deploy the release to production."},
	}
	list := []HostSkill{{Name: "eda", Path: "/x/eda/SKILL.md"}, {Name: "deploy", Path: "/x/deploy/SKILL.md"}}
	return NewWorld(list, ss, cfg, nil)
}

func TestVisible(t *testing.T) {
	due := &lifecycle.Due{Reason: rules.Reason{Code: rules.ArchiveNotRelevant}}
	copies := []lifecycle.Body{
		{ID: "a", Hash: "h1"},
		{ID: "b", Hash: "h1"},
		{ID: "c", Hash: "h2", Archived: true},
		{ID: "d", Hash: "h3", Due: due},
		{ID: "e"},
	}
	all := map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true}
	for _, tc := range []struct {
		name    string
		carried map[string]bool
		hash    string
		want    string
	}{
		{"the latest copy with the hash", all, "h1", "b"},
		{"only what the last request carried", map[string]bool{"a": true}, "h1", "a"},
		{"nothing carried (after a restore)", nil, "h1", ""},
		{"archived", all, "h2", ""},
		{"due for archive", all, "h3", ""},
		{"no hash", all, "", ""},
	} {
		b, ok := Visible(copies, tc.carried, tc.hash)
		if got := map[bool]string{true: b.ID}[ok]; got != tc.want {
			t.Errorf("%s: Visible = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestAlreadyLoadedOnlyWhatWasSent: a body counts as visible only once a
// request carried it whole (issue 27, item 2). A skill tool load the
// session recorded whose result never reached the host's request (the
// sidecar died or answered late) is not "already loaded", nor is a copy
// restored from the records before the next request.
func TestAlreadyLoadedOnlyWhatWasSent(t *testing.T) {
	rec := &recorder{}
	s := New(gateWorld(func(c *rules.Config) { c.CacheAware.Enabled = false }), InitializeParams{}, rec, Options{})
	s.RunStart()
	if _, ok := s.ToolLoad("t1", "eda", "h-eda", 100); ok {
		t.Fatal("a first load answered already loaded")
	}
	if _, ok := s.ToolLoad("t2", "eda", "h-eda", 100); ok {
		t.Fatal("recorded but never sent: answered already loaded")
	}
	// The host's next request carries neither (the results were lost):
	// both are forgotten.
	if _, err := s.BeforeRequest(BeforeRequestParams{}); err != nil {
		t.Fatal(err)
	}
	if n := len(s.eng.Bodies()); n != 0 {
		t.Fatalf("%d bodies after the lost results, want 0", n)
	}
	s.ToolLoad("t3", "eda", "h-eda", 100)
	tool := LoadRef{ID: "t3", Skill: "eda", Kind: lifecycle.ByTool, Size: 100}
	if _, err := s.BeforeRequest(BeforeRequestParams{Loads: []LoadRef{tool}}); err != nil {
		t.Fatal(err)
	}
	if note, ok := s.ToolLoad("t4", "eda", "h-eda", 100); !ok || !strings.Contains(note, `"eda" is already loaded`) {
		t.Fatalf("carried by the last request: %q, %v", note, ok)
	}
	restored := New(gateWorld(func(c *rules.Config) { c.CacheAware.Enabled = false }), InitializeParams{}, &recorder{}, Options{})
	if _, err := restored.Restore(SessionRestoreParams{Records: rec.raw(t)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := restored.alreadyLoaded("eda", "h-eda"); ok {
		t.Fatal("restored, before any request: answered already loaded")
	}
	restored.BeforeRequest(BeforeRequestParams{Loads: []LoadRef{tool}})
	if _, ok := restored.alreadyLoaded("eda", "h-eda"); !ok {
		t.Fatal("restored, carried by the next request: not already loaded")
	}
}

// TestAlreadyLoadedRevivesDue: a copy due for archive (still whole in the
// context) is taken back by a repeated load, answered with the note, and
// the record of that keeps a restore exact.
func TestAlreadyLoadedRevivesDue(t *testing.T) {
	rec := &recorder{}
	w := gateWorld(nil) // cache-aware: a dropped body is due first
	s := New(w, InitializeParams{}, rec, Options{})
	s.RunStart()
	s.ToolLoad("t1", "eda", "h-eda", 100)
	tool := LoadRef{ID: "t1", Skill: "eda", Kind: lifecycle.ByTool, Size: 100}
	s.BeforeRequest(BeforeRequestParams{Loads: []LoadRef{tool}})
	s.RunEnd()
	s.UserPrompt(UserPromptParams{Text: "deploy the release to production now please"})
	if b, _ := s.eng.LiveCopy("eda"); b.Due == nil {
		t.Fatalf("eda is not due: %+v", b)
	}
	n := len(rec.recs)
	if note, ok := s.ToolLoad("t2", "eda", "h-eda", 100); !ok || !strings.Contains(note, `"eda" is already loaded`) {
		t.Fatalf("a due copy carried by the last request: %q, %v", note, ok)
	}
	if ds := rec.recs[n:]; len(ds) != 1 || ds[0].Action != lifecycle.ActUndue || ds[0].Reason.Code != rules.KeepReloaded {
		t.Fatalf("records of the revive: %+v", ds)
	}
	restored := New(w, InitializeParams{}, &recorder{}, Options{})
	restored.Restore(SessionRestoreParams{Records: rec.raw(t)})
	if d := cmp.Diff(s.eng.State(), restored.eng.State()); d != "" {
		t.Errorf("restored state differs (-live +restored):\n%s", d)
	}
}
