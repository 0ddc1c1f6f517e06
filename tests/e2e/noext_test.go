//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNoExtensionMultiTurn is the reference behaviour the bridge improves on:
// three user turns (three Pi runs with --continue) in which the model loads a
// skill and its reference file, switches to another skill, then reloads the
// first. Without an extension every body stays in the context (the reload is
// a second copy), and every request extends the previous one, so the whole
// previous request is a cache read.
func TestNoExtensionMultiTurn(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	var skillMD map[string]string
	read := func(path string) Reply { return Do(Call{Name: "read", Args: map[string]any{"path": path}}) }
	prov := NewProvider(t, func(req *Request) Reply {
		tide, bread := skillMD["tide-tables"], skillMD["bread-proofing"]
		script := [][]Reply{
			{read(tide), read(filepath.Join(filepath.Dir(tide), "references", "constituents.md")),
				Do(Call{Name: "bash", Args: map[string]any{"command": "echo tide table computed"}}), Say("High tide at 06:12.")},
			{read(bread), Say("About three hours at 20 degrees.")},
			{read(tide), Say("Low tide at 12:25.")},
		}
		return Steps(script...)(req)
	})
	env := NewEnv(t, pi, prov)
	skillMD = env.AddSkills(t, testSkills...)
	prompts := []string{
		"When is high tide at the harbour tomorrow?",
		"How long should I proof a rye loaf at 20 degrees?",
		"Back to the tides: when is low tide?",
	}
	var res *Result
	for i, p := range prompts {
		res = env.RunOK(t, RunOpts{Prompts: []string{p}, Approve: true, Continue: i > 0})
	}
	reqs := prov.Requests()
	perTurn := map[int]int{}
	for _, r := range reqs {
		perTurn[r.UserTurn]++
	}
	if len(reqs) != 8 || perTurn[1] != 4 || perTurn[2] != 2 || perTurn[3] != 2 {
		t.Fatalf("requests per turn = %v (%d in all), want 4, 2, 2", perTurn, len(reqs))
	}
	last := reqs[len(reqs)-1]
	for marker, want := range map[string]int{"TIDE-BODY-41c7": 2, "BREAD-BODY-5e18": 1, "TIDE-REF-9a02": 1, "tide table computed": 1} {
		if got := CountInMessages(last, marker); got != want {
			t.Errorf("last request carries %q %d times, want %d", marker, got, want)
		}
	}
	for i := 1; i < len(reqs); i++ {
		prev := utf8.RuneCountInString(reqs[i-1].S)
		if !strings.HasPrefix(reqs[i].S, reqs[i-1].S[:len(reqs[i-1].S)-1]) {
			t.Errorf("request %d does not extend request %d", i, i-1)
		}
		if want := (prev - 1) / 4; reqs[i].Usage.CachedTokens != want {
			t.Errorf("request %d: cached %d, want %d (all of the previous request)", i, reqs[i].Usage.CachedTokens, want)
		}
	}
	sess := MustReadSession(t, res.SessionFile)
	if err := sess.CheckTree(); err != nil {
		t.Error(err)
	}
	if n := len(sess.Messages("user")); n != 3 {
		t.Errorf("session has %d user messages, want 3", n)
	}
	checkUsage(t, sess, reqs, DefaultModel)
	RecordSession(t, env, res.SessionFile, "pi16-noext-three-turns")
}
