//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBridgeReusedToolCallIDs (issue 27, item 3): a provider that returns
// "call_0" for every tool call. Each tool result is still known by a name
// of its own (the bridge's, in the result's details), so the placeholders
// replace only the results they stand for: the tide body and its reference
// file after the topic moves to bread, never the bread body loaded last.
func TestBridgeReusedToolCallIDs(t *testing.T) {
	t.Parallel()
	scenarioReusedToolCallIDs(t, Pi16(t))
}

func TestBridgeReusedToolCallIDsPi073(t *testing.T) {
	t.Parallel()
	scenarioReusedToolCallIDs(t, Pi073(t))
}

func scenarioReusedToolCallIDs(t *testing.T, pi PiInstall) {
	same := func(name string, args map[string]any) Reply { return Do(Call{ID: "call_0", Name: name, Args: args}) }
	script := func(r *Request) Reply {
		switch {
		case r.UserTurn == 1 && r.Step == 0:
			return same("skill", map[string]any{"name": "tide-tables"})
		case r.UserTurn == 1 && r.Step == 1:
			ref := filepath.Join(filepath.Dir(ProjectSkillFile(r.SystemPrompt(), "tide-tables")), "references", "constituents.md")
			return same("read", map[string]any{"path": ref})
		case r.UserTurn == 2 && r.Step == 0:
			return same("skill", map[string]any{"name": "bread-proofing"})
		}
		return Say("Done.")
	}
	env, prov, _ := bridgeEnv(t, pi, script, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: pi.TrustGated, Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 5 {
		t.Fatalf("provider got %d requests, want 5 (load, read, answer, load, answer)", len(reqs))
	}
	// What each tool result may hold: its own content, or its own
	// placeholder.
	type want struct{ whole, placeholder string }
	tide := want{"TIDE-BODY-41c7", placeholderTide}
	ref := want{"TIDE-REF-9a02", `constituents.md, a file of skill "tide-tables", was archived`}
	bread := want{"BREAD-BODY-5e18", `the instructions of skill "bread-proofing" were archived`}
	for i, r := range reqs {
		var tools []Message
		for _, m := range r.Messages {
			if m.Role == "tool" {
				tools = append(tools, m)
			}
		}
		for k, m := range tools {
			w := []want{tide, ref, bread}[min(k, 2)]
			if k > 2 || !strings.Contains(m.Text(), w.whole) && !strings.Contains(m.Text(), w.placeholder) {
				t.Errorf("request %d, tool result %d holds %.120q; want its own content (%s) or placeholder", i, k, m.Text(), w.whole)
			}
		}
	}
	// After the move to bread: the tide body and its file are archived,
	// the bread body (loaded under the same tool call id) is whole.
	last := reqs[4]
	for _, c := range []struct {
		marker string
		n      int
	}{{"TIDE-BODY-41c7", 0}, {placeholderTide, 1}, {"TIDE-REF-9a02", 0}, {ref.placeholder, 1}, {"BREAD-BODY-5e18", 1}, {bread.placeholder, 0}} {
		if got := CountInMessages(last, c.marker); got != c.n {
			t.Errorf("last request holds %q %d times, want %d", c.marker, got, c.n)
		}
	}
	// Each result was recorded under a name of its own.
	var names []string
	for _, r := range records(t, MustReadSession(t, res.SessionFile)) {
		if r["action"] == "load" || r["action"] == "resource" {
			id, _ := r["id"].(string)
			names = append(names, r["action"].(string)+":"+id)
		}
	}
	if strings.Join(names, " ") != "load:call_0 resource:call_0#2 load:call_0#3" {
		t.Errorf("recorded %q, want load:call_0 resource:call_0#2 load:call_0#3", names)
	}
}
