package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// foresightSession is a session of turns user turns: turn 1 reads alpha's
// SKILL.md (body of bodyChars) and turns in reads[] read it again (the
// same file); then every turn runs a command whose output is stepChars,
// and answers. Turns are gap apart.
func foresightSession(t *testing.T, turns, bodyChars, stepChars int, gap time.Duration, reads ...int) string {
	t.Helper()
	return foresightSessionPrompts(t, nil, turns, bodyChars, stepChars, gap, reads...)
}

// foresightSessionPrompts is foresightSession with the prompts of some
// turns given ("turn N" for the others).
func foresightSessionPrompts(t *testing.T, prompts map[int]string, turns, bodyChars, stepChars int, gap time.Duration, reads ...int) string {
	t.Helper()
	sb := newSessionBuilder(t, "f")
	add := sb.add
	usage := map[string]any{"input": 0, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1}
	body := "---\nname: alpha\ndescription: Alpha things.\n---\n\n" + strings.Repeat("alpha rule. ", bodyChars/12)
	reread := map[int]bool{1: true}
	for _, r := range reads {
		reread[r] = true
	}
	for turn := 1; turn <= turns; turn++ {
		sb.at = sb.at.Add(gap)
		prompt := fmt.Sprintf("turn %d", turn)
		if p, ok := prompts[turn]; ok {
			prompt = p
		}
		add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}})
		if reread[turn] {
			call := fmt.Sprint("c", turn)
			add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": call, "name": "read", "arguments": map[string]any{"path": "/p/.agents/skills/alpha/SKILL.md"}}},
				"provider": "fake", "model": "a", "usage": usage, "stopReason": "toolUse"})
			add(map[string]any{"role": "toolResult", "toolCallId": call, "toolName": "read", "content": []any{map[string]any{"type": "text", "text": body}}, "isError": false})
		}
		call := fmt.Sprint("b", turn)
		add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": call, "name": "bash", "arguments": map[string]any{"command": "make"}}},
			"provider": "fake", "model": "a", "usage": usage, "stopReason": "toolUse"})
		add(map[string]any{"role": "toolResult", "toolCallId": call, "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": strings.Repeat("y", stepChars)}}, "isError": false})
		add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "provider": "fake", "model": "a", "usage": usage, "stopReason": "stop"})
	}
	return sb.file()
}

// sessionBuilder writes a version-3 session in /p, one message entry a
// second, each the child of the one before.
type sessionBuilder struct {
	t      *testing.T
	at     time.Time
	lines  []string
	parent any
	n      int
}

func newSessionBuilder(t *testing.T, id string) *sessionBuilder {
	return &sessionBuilder{t: t, at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		lines: []string{`{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`}}
}

// add appends message m (its timestamp set) as the next entry.
func (sb *sessionBuilder) add(m map[string]any) {
	sb.n++
	sb.at = sb.at.Add(time.Second)
	m["timestamp"] = sb.at.UnixMilli()
	id := fmt.Sprint("e", sb.n)
	b, err := json.Marshal(map[string]any{"type": "message", "id": id, "parentId": sb.parent, "timestamp": sb.at.Format(time.RFC3339Nano), "message": m})
	if err != nil {
		sb.t.Fatal(err)
	}
	sb.parent = id
	sb.lines = append(sb.lines, string(b))
}

// file writes the session and returns its path.
func (sb *sessionBuilder) file() string { return writeSession(sb.t, sb.lines...) }

// foresightReport replays file with the foresight strategy and with the
// bridge keeping every body.
func foresightReport(t *testing.T, file string, ttl time.Duration, cfg rules.Config) (fs, keep StrategyResult) {
	t.Helper()
	rs := foresightReplay(t, file, ttl, cfg)
	return rs[1], rs[3]
}

// foresightReplay replays file with keep-all, foresight, foresight-timing
// and the bridge keeping every body, in that order.
func foresightReplay(t *testing.T, file string, ttl time.Duration, cfg rules.Config) []StrategyResult {
	t.Helper()
	cat := alphaBetaCatalog()
	return replayFile(t, file, Options{TTL: ttl,
		Strategies: []StrategySpec{ForesightSpec(world(cat, cfg)), ForesightTimingSpec(world(cat, cfg)), {Name: "bridge-keep", Bridge: true, New: func() Strategy { return KeepAll{} }}}}).Strategies
}

// TestForesightTiming: the timing-only yardstick archives only what
// relevance-only archives, and not before it does.
func TestForesightTiming(t *testing.T) {
	// Every prompt is too short to judge and minKeep holds the one body:
	// relevance-only never drops it, so foresight-timing keeps it where
	// foresight archives it.
	file := foresightSession(t, 20, 20000, 200, time.Minute)
	rs := foresightReplay(t, file, 0, rules.Default())
	fs, ft, keep := rs[1], rs[2], rs[3]
	if fs.Archives != 1 || ft.Archives != 0 || ft.CostUSD != keep.CostUSD {
		t.Errorf("kept by the rules: foresight %d archives, foresight-timing %d (%.9f USD, keeping %.9f); want 1 and 0, at keeping's cost",
			fs.Archives, ft.Archives, ft.CostUSD, keep.CostUSD)
	}

	// Turn 8 is about beta: with minKeep 0 the rules drop alpha there.
	// foresight archives it at turn 2; foresight-timing from turn 8 at
	// the earliest, which still pays, but less.
	cfg := rules.Default()
	cfg.MinKeep = 0
	file = foresightSessionPrompts(t, map[int]string{8: "now do the beta work, all of the beta work"}, 20, 20000, 200, time.Minute)
	rs = foresightReplay(t, file, 0, cfg)
	fs, ft, keep = rs[1], rs[2], rs[3]
	if fs.Archives != 1 || ft.Archives != 1 {
		t.Fatalf("dropped at turn 8: foresight %d archives, foresight-timing %d; want 1 each", fs.Archives, ft.Archives)
	}
	if !(fs.CostUSD < ft.CostUSD && ft.CostUSD < keep.CostUSD) {
		t.Errorf("costs: foresight %.9f, foresight-timing %.9f, keeping %.9f USD; want them in that order, strictly", fs.CostUSD, ft.CostUSD, keep.CostUSD)
	}
}

func TestForesight(t *testing.T) {
	noDedupe := rules.Default()
	noDedupe.Dedupe = rules.DedupeArchiveOlder
	pinned := rules.Default()
	pinned.Pinned = []string{"alpha"}
	tests := []struct {
		name              string
		turns, body, step int
		gap               time.Duration
		ttl               time.Duration
		cfg               rules.Config
		reads             []int
		archives, reloads int
		cheaper           bool // strictly cheaper than keeping the body
	}{
		// A large body, little after it, many requests: archived.
		{"pays", 20, 20000, 200, time.Minute, 0, rules.Default(), nil, 1, 0, true},
		// The same body pinned: kept.
		{"pinned", 20, 20000, 200, time.Minute, 0, pinned, nil, 0, 0, false},
		// Pinned, but read again in turn 10: the older copy can go once
		// the newer one is there (dedupe off, so the read delivers it);
		// the rewrite of the newer copy pays over 30 requests.
		{"pinned-newer-copy", 40, 20000, 200, time.Minute, 0, withDedupe(pinned, rules.DedupeArchiveOlder), []int{10}, 1, 0, true},
		// A small body followed by a long answer, few requests, warm
		// cache: archiving costs more than it saves.
		{"never-warm", 4, 2000, 20000, time.Minute, 0, rules.Default(), nil, 0, 0, false},
		// The same with pauses past the lifetime: every request is written
		// whole, so archiving is free and saves.
		{"free-when-cold", 4, 2000, 20000, 6 * time.Minute, 5 * time.Minute, rules.Default(), nil, 1, 0, true},
		// Read again in the last turn: archived between the two reads, the
		// second read delivers it again (a reload), which still pays.
		{"reread", 20, 20000, 200, time.Minute, 0, noDedupe, []int{20}, 1, 1, true},
		// With the dedupe, an unchanged second read is answered with the
		// note as long as the first copy is visible.
		{"dedupe", 6, 2000, 20000, time.Minute, 0, rules.Default(), []int{3}, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := foresightSession(t, tc.turns, tc.body, tc.step, tc.gap, tc.reads...)
			fs, keep := foresightReport(t, file, tc.ttl, tc.cfg)
			if fs.Archives != tc.archives || fs.Reloads != tc.reloads {
				t.Errorf("archives %d, reloads %d; want %d, %d", fs.Archives, fs.Reloads, tc.archives, tc.reloads)
			}
			if fs.CostUSD > keep.CostUSD || tc.cheaper != (fs.CostUSD < keep.CostUSD) {
				t.Errorf("foresight %.9f USD, every body kept %.9f: want cheaper %v (and never dearer)", fs.CostUSD, keep.CostUSD, tc.cheaper)
			}
		})
	}
}

func withDedupe(c rules.Config, d string) rules.Config {
	c.Dedupe = d
	return c
}

// TestForesightTimingNotBeforeTheRules: a body the rules drop in the
// middle of a turn (a newer skill loaded mid-run supersedes it) is not
// archived by foresight-timing any earlier, not even at that turn's
// start: the request that loads beta, after a long command output, still
// carries alpha's body, and the one after it does not.
func TestForesightTimingNotBeforeTheRules(t *testing.T) {
	sb := newSessionBuilder(t, "mid")
	usage := map[string]any{"input": 0, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1}
	say := func(role string, blocks ...map[string]any) {
		content := make([]any, len(blocks))
		for i, b := range blocks {
			content[i] = b
		}
		m := map[string]any{"role": role, "content": content}
		if role == "assistant" {
			m["provider"], m["model"], m["usage"], m["stopReason"] = "fake", "a", usage, "toolUse"
		}
		sb.add(m)
	}
	call := func(id, name string, args map[string]any, result string) {
		say("assistant", map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args})
		sb.add(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name,
			"content": []any{map[string]any{"type": "text", "text": result}}, "isError": false})
	}
	text := func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }
	alpha := "---\nname: alpha\ndescription: Alpha things.\n---\n\n" + strings.Repeat("alpha rule. ", 20000/12)
	beta := "---\nname: beta\ndescription: Beta's work.\n---\n\n" + strings.Repeat("beta rule. ", 2000/11)
	const midTurn = 6
	for turn := 1; turn <= 20; turn++ {
		sb.at = sb.at.Add(time.Minute)
		say("user", text(fmt.Sprintf("turn %d", turn)))
		if turn == 1 {
			call("r1", "read", map[string]any{"path": "/p/.agents/skills/alpha/SKILL.md"}, alpha)
		}
		call(fmt.Sprint("b", turn), "bash", map[string]any{"command": "make"}, strings.Repeat("y", 200))
		if turn == midTurn {
			call("big", "bash", map[string]any{"command": "make test"}, strings.Repeat("z", 30000))
			call("r2", "read", map[string]any{"path": "/p/.agents/skills/beta/SKILL.md"}, beta)
		}
		m := map[string]any{"role": "assistant", "content": []any{text("ok")}, "provider": "fake", "model": "a", "usage": usage, "stopReason": "stop"}
		sb.add(m)
	}
	cfg := rules.Default()
	cfg.TopK, cfg.MinKeep = 1, 1
	ro := cfg
	ro.CacheAware.Enabled = false
	cat := alphaBetaCatalog()
	rep := replayFile(t, sb.file(), Options{Series: true, Strategies: []StrategySpec{
		{Name: "bridge-keep", Bridge: true, New: func() Strategy { return KeepAll{} }},
		EngineSpec("relevance-only", world(cat, ro)), ForesightTimingSpec(world(cat, cfg))}})
	keep, rel, ft := rep.Series[1], rep.Series[2], rep.Series[3]
	if len(keep) != len(ft) || len(keep) != len(rel) {
		t.Fatalf("series of %d, %d and %d requests", len(keep), len(rel), len(ft))
	}
	// Turn 1 has three requests, the turns before midTurn two, and the
	// third request of midTurn is the one that loads beta.
	load := 3 + 2*(midTurn-2) + 2
	for i := load - 3; i <= load+1; i++ {
		// alpha's body is 5,000 tokens at 4 characters a token.
		relGone, ftGone := keep[i].Tokens-rel[i].Tokens > 4000, keep[i].Tokens-ft[i].Tokens > 4000
		if want := i > load; relGone != want || ftGone != want {
			t.Errorf("request %d: every body kept %d tokens, relevance-only %d, foresight-timing %d; alpha archived: %v and %v, want %v",
				i, keep[i].Tokens, rel[i].Tokens, ft[i].Tokens, relGone, ftGone, want)
		}
	}
	if rs := rep.Strategies; rs[3].CostUSD > rs[2].CostUSD {
		t.Errorf("foresight-timing %.9f USD, relevance-only %.9f: the plan can always take relevance-only's moment", rs[3].CostUSD, rs[2].CostUSD)
	}
}

// TestForesightPeak: a large body the rules drop at turn 2, followed by
// long command outputs over a few requests. Keeping it is cheaper than
// rewriting what follows it, so foresight-timing keeps it, and its peak
// goes more than 10% over relevance-only's; foresight-timing-peak must
// stay within that and archives it, at a cost between the two.
func TestForesightPeak(t *testing.T) {
	cfg := rules.Default()
	cfg.MinKeep = 0
	ro := cfg
	ro.CacheAware.Enabled = false
	file := foresightSessionPrompts(t, map[int]string{2: "now do the beta work, all of the beta work"}, 4, 20000, 20000, time.Minute)
	cat := alphaBetaCatalog()
	rs := replayFile(t, file, Options{Strategies: []StrategySpec{
		EngineSpec("relevance-only", world(cat, ro)), ForesightTimingSpec(world(cat, cfg)), ForesightPeakSpec(world(cat, cfg))}}).Strategies
	rel, ft, fp := rs[1], rs[2], rs[3]
	limit := int(float64(rel.PeakContext) * ForesightPeakShare)
	if ft.Archives != 0 || ft.PeakContext <= limit {
		t.Fatalf("foresight-timing: %d archives, peak %d tokens (relevance-only's %d); want it to keep the body, over %d", ft.Archives, ft.PeakContext, rel.PeakContext, limit)
	}
	if fp.Archives != 1 || fp.PeakContext > limit {
		t.Errorf("foresight-timing-peak: %d archives, peak %d tokens; want 1, at most %d", fp.Archives, fp.PeakContext, limit)
	}
	if !(ft.CostUSD < fp.CostUSD && fp.CostUSD <= rel.CostUSD) {
		t.Errorf("costs: foresight-timing %.9f, foresight-timing-peak %.9f, relevance-only %.9f USD; want them in that order", ft.CostUSD, fp.CostUSD, rel.CostUSD)
	}
}

// TestPlanKeys: a plan names a session's own load by its id, and a reload
// replay added by its skill and moment, the same in every replay that
// makes it, whatever its running number there.
func TestPlanKeys(t *testing.T) {
	// at is the position before the event: a batch's own loads count
	// before its reloads are named.
	at := func(turn, loads int) position { return position{turn: turn, loads: loads} }
	tests := []struct {
		name string
		ev   lifecycle.Event
		at   position
		id   string
		want string
	}{
		{"own load", lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: "call_1", Skill: "alpha"}}, at(2, 1), "call_1", "call_1"},
		{"reload", lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: reloadIDPrefix + "1", Skill: "alpha"}}, at(4, 0), reloadIDPrefix + "1", "reload of alpha at 4.0"},
		{"the same reload, numbered 3 in another replay", lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: reloadIDPrefix + "3", Skill: "alpha"}}, at(4, 0), reloadIDPrefix + "3", "reload of alpha at 4.0"},
		{"in a batch", lifecycle.Event{Type: lifecycle.EvLoads, Loads: []lifecycle.Load{{ID: "call_2", Skill: "beta"}, {ID: reloadIDPrefix + "2", Skill: "beta"}}}, at(5, 1), reloadIDPrefix + "2", "reload of beta at 5.2"},
		{"a file", lifecycle.Event{Type: lifecycle.EvResource, Resource: &lifecycle.Resource{ID: "call_9", Skill: "beta"}}, at(5, 2), "call_9", "call_9"},
	}
	for _, tc := range tests {
		p := tc.at
		p.observe(tc.ev)
		if got := p.key(tc.id); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
