package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// TestDedupeStrategy: the engine strategy answers a repeated identical
// skill tool load with the note through the host's gate, once a request
// carried the first copy.
func TestDedupeStrategy(t *testing.T) {
	cfg := rules.Default()
	cfg.MinKeep = 0
	cfg.CacheAware.Enabled = false // relevance-only: the older copy is archived at once
	var s *EngineStrategy
	var carried []string
	load := func(id, skill, hash string) {
		s.Observe(ev(lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: id, Skill: skill, Kind: lifecycle.ByTool, Size: 1000, Hash: hash}}))
		if !s.Deduped(id) {
			carried = append(carried, id)
		}
	}
	request := func() {
		p := &host.BeforeRequestParams{}
		for _, id := range carried {
			p.Loads = append(p.Loads, host.LoadRef{ID: id, Skill: "x", Kind: lifecycle.ByTool, Size: 1000})
		}
		s.Observe(Event{Event: lifecycle.Event{Type: lifecycle.EvRequest, Request: &lifecycle.Request{}}, Host: p})
	}
	start := func() {
		s, carried = NewEngineStrategy(world(lifecycle.Catalog{}, cfg)), nil
		s.Observe(ev(lifecycle.Event{Type: lifecycle.EvRunStart}))
	}
	start()
	load("a1", "alpha", "h1")
	if len(s.Archived()) != 0 {
		t.Fatalf("archived after one load: %v", s.Archived())
	}
	// Loaded again before a request carried the first copy (two calls
	// in one response): the body is not above yet, so it is delivered;
	// the older copy goes.
	load("a0", "alpha", "h1")
	if s.Deduped("a0") || s.Archived()["a1"] != rules.Placeholder("alpha") {
		t.Fatalf("a repeat in the same response: deduped %v, archived %v", s.Deduped("a0"), s.Archived())
	}
	start()
	load("a1", "alpha", "h1")
	request()
	load("a2", "alpha", "h1") // identical and sent: already loaded
	arch := s.Archived()
	if !s.Deduped("a2") || !strings.HasPrefix(arch["a2"], `Skill "alpha" is already loaded`) || len(arch) != 1 {
		t.Fatalf("after a repeated load: deduped %v, archived %v", s.Deduped("a2"), arch)
	}
	if got := len(s.sess.Engine().Bodies()); got != 1 {
		t.Errorf("the engine recorded %d bodies, want 1", got)
	}
	// A changed file: delivered, and the older copy archived.
	load("a3", "alpha", "h2")
	request()
	arch = s.Archived()
	if s.Deduped("a3") || arch["a1"] != rules.Placeholder("alpha") || arch["a3"] != "" {
		t.Errorf("after a changed load: %v", arch)
	}
	// No hash: never deduped.
	load("b1", "beta", "")
	request()
	load("b2", "beta", "")
	if s.Deduped("b2") {
		t.Error("a load without a hash was deduped")
	}
	var ids []string
	for _, b := range s.sess.Engine().Bodies() {
		ids = append(ids, b.ID)
	}
	if d := cmp.Diff([]string{"a1", "a3", "b1", "b2"}, ids); d != "" {
		t.Errorf("engine bodies (-want +got):\n%s", d)
	}
}

// TestReplayDedupe replays a session in which the model reads the same
// skill twice, as the bridge would have served it (the pack's listing:
// the reads become skill tool calls): "archive-older" archives the first
// copy (the prefix is rewritten from it), "already-loaded" answers the
// second with the note.
func TestReplayDedupe(t *testing.T) {
	cfg := rules.Default()
	cfg.CacheAware.Enabled = false
	cfg.Dedupe = rules.DedupeArchiveOlder
	older := EngineSpec("archive-older", world(lifecycle.Catalog{}, cfg))
	cfg.Dedupe = rules.DedupeAlreadyLoaded
	already := EngineSpec("already-loaded", world(lifecycle.Catalog{}, cfg))
	// Against keeping both copies through the bridge (its listing and
	// tool are in every request).
	keep := StrategySpec{Name: "bridge-keep", Bridge: true, New: func() Strategy { return KeepAll{} }}
	rep := run(t, Options{Pack: bridgePack(), Strategies: []StrategySpec{older, already, keep}}, "dedupe.jsonl")
	ka, ao, al := rep.Strategies[3], rep.Strategies[1], rep.Strategies[2]
	if ao.Archives != 1 || al.Archives != 0 || ao.Reloads != 0 || al.Reloads != 0 {
		t.Errorf("archives %d / %d, reloads %d / %d; want 1 / 0, 0 / 0", ao.Archives, al.Archives, ao.Reloads, al.Reloads)
	}
	if !(al.CostUSD < ao.CostUSD && ao.CostUSD < ka.CostUSD) {
		t.Errorf("cost: keep-all %.8f, archive-older %.8f, already-loaded %.8f; want already-loaded < archive-older < keep-all", ka.CostUSD, ao.CostUSD, al.CostUSD)
	}
	// From the request after the second read on, both hold one copy
	// of the body: the same size but for the note against the placeholder.
	ta, tl, tk := tokens(rep, 1), tokens(rep, 2), tokens(rep, 3)
	last := len(tk) - 1
	if !(tl[last] < tk[last] && ta[last] < tk[last]) {
		t.Errorf("last request: keep-all %d, archive-older %d, already-loaded %d tokens", tk[last], ta[last], tl[last])
	}
}

// TestReplayDedupeOnlyTheSkillTool: "already loaded" is the skill tool's
// answer; a read of a SKILL.md is served by the host's read tool, whole,
// as the bridge serves it (a session replayed without the bridge's view:
// no listing to render it from). Replay used to answer the second read
// with the note, which no host could send.
func TestReplayDedupeOnlyTheSkillTool(t *testing.T) {
	cfg := rules.Default()
	cfg.CacheAware.Enabled = false
	cfg.Dedupe = rules.DedupeAlreadyLoaded
	rep := run(t, Options{Strategies: []StrategySpec{EngineSpec("already-loaded", world(lifecycle.Catalog{}, cfg))}}, "dedupe.jsonl")
	if al := rep.Strategies[1]; al.Archives != 1 {
		t.Errorf("already-loaded on two reads: %d archives, want 1 (the older copy, superseded; no note)", al.Archives)
	}
}
