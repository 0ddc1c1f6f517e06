package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// resourceSession: turn 1 reads alpha's SKILL.md and then
// alpha/references/guide.md (refChars); turns 2 to 6 are about beta, each
// with a long command output; with readAgain, turn 6 reads the guide again.
func resourceSession(t *testing.T, refChars int, readAgain bool) string {
	t.Helper()
	sb := newSessionBuilder(t, "r")
	add := sb.add
	usage := map[string]any{"input": 0, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1}
	call := func(id, name string, args map[string]any, result string) {
		add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}},
			"provider": "fake", "model": "a", "usage": usage, "stopReason": "toolUse"})
		add(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name, "content": []any{map[string]any{"type": "text", "text": result}}, "isError": false})
	}
	body := "---\nname: alpha\ndescription: Alpha things.\n---\n\n" + strings.Repeat("alpha rule. ", 500)
	guide := strings.Repeat("alpha guide line. ", refChars/18)
	for turn := 1; turn <= 6; turn++ {
		prompt := "now do the beta work, all of the beta work"
		if turn == 1 {
			prompt = "alpha things please"
		}
		add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}})
		if turn == 1 {
			call("c1", "read", map[string]any{"path": "/p/.agents/skills/alpha/SKILL.md"}, body)
			// Relative to the session's cwd (/p), as the agent may write it.
			call("g1", "read", map[string]any{"path": ".agents/skills/alpha/references/guide.md"}, guide)
		}
		if turn == 6 && readAgain {
			call("g6", "read", map[string]any{"path": "/p/.agents/skills/alpha/references/guide.md"}, guide)
		}
		call(fmt.Sprint("b", turn), "bash", map[string]any{"command": "make"}, strings.Repeat("y", 3000))
		add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "provider": "fake", "model": "a", "usage": usage, "stopReason": "stop"})
	}
	return sb.file()
}

// Replay archives a skill's files with its body, as the bridge does: the
// guide read after alpha's body leaves the context when the body does, is
// no archive of its own, and a read of it after that is an orphan use.
func TestReplayArchivesResources(t *testing.T) {
	cat := alphaBetaCatalog()
	cfg := rules.Default()
	cfg.MinKeep = 0
	cfg.CacheAware.Enabled = false // archived as soon as the rules drop it
	off := cfg
	off.ArchiveResources = false
	const ref = 9000
	cpt := 0.0
	run := func(readAgain bool) (keep, on, without StrategyResult) {
		rep := replayFile(t, resourceSession(t, ref, readAgain), Options{Strategies: []StrategySpec{
			EngineSpec("on", world(cat, cfg)), EngineSpec("off", world(cat, off))}})
		cpt = rep.Branches[0].Calibration.CharsPerToken
		return rep.Strategies[0], rep.Strategies[1], rep.Strategies[2]
	}
	keep, on, without := run(false)
	if on.Archives != 1 || without.Archives != 1 {
		t.Errorf("archives %d (files on) and %d (off), want 1 each: a file is no archive of its own", on.Archives, without.Archives)
	}
	// The last request is the peak of all three; the guide's characters
	// (less its placeholder) are what separates on from off.
	saved := float64(without.PeakContext-on.PeakContext) * cpt
	ph := float64(len(rules.ResourcePlaceholder("alpha", ".agents/skills/alpha/references/guide.md")))
	if want := float64(ref) - ph; saved < 0.9*want || saved > 1.1*want {
		t.Errorf("peak: on %d, off %d tokens: %.0f characters apart, want about %.0f (the guide)", on.PeakContext, without.PeakContext, saved, want)
	}
	if !(on.CostUSD < without.CostUSD && on.CostUSD < keep.CostUSD) {
		t.Errorf("cost: keep-all %.4f, off %.4f, on %.4f: want on below both (the same rewrite saves more)", keep.CostUSD, without.CostUSD, on.CostUSD)
	}
	if on.OrphanUses != 0 || on.Reloads != 0 {
		t.Errorf("on: %d orphan uses, %d reloads, want none", on.OrphanUses, on.Reloads)
	}
	// Foresight's plans tie the files to the bodies as the engine does:
	// its best plan with them costs less than without.
	rep := replayFile(t, resourceSession(t, ref, false), Options{Strategies: []StrategySpec{
		ForesightSpec(world(cat, cfg)), withName(ForesightSpec(world(cat, off)), "foresight-off")}})
	if fon, foff := rep.Strategies[1], rep.Strategies[2]; !(fon.CostUSD < foff.CostUSD) || fon.Archives != 1 {
		t.Errorf("foresight: %.4f USD with the files, %.4f without, %d archives: want less with them, 1 archive", fon.CostUSD, foff.CostUSD, fon.Archives)
	}
	// The decisions listing says what went with the body.
	dec := replayFile(t, resourceSession(t, ref, false), Options{Decisions: true, Strategies: []StrategySpec{EngineSpec("on", world(cat, cfg))}})
	var notes []string
	for _, n := range dec.Branches[0].Strategies[1].Decisions {
		if n.Action == "archive" {
			notes = append(notes, n.Text)
		}
	}
	if len(notes) != 1 || !strings.HasSuffix(notes[0], "(with 1 file of its folder)") {
		t.Errorf("archive notes %q: want one, naming the file that went with it", notes)
	}
	_, on, _ = run(true)
	if on.OrphanUses != 1 || on.Reloads != 1 {
		t.Errorf("the guide read again with alpha archived: %d orphan uses, %d reloads, want 1 and 1", on.OrphanUses, on.Reloads)
	}
}

func withName(s StrategySpec, name string) StrategySpec {
	s.Name = name
	return s
}

// TestReplayEarlyRead: a file of a skill's folder read before the skill is
// loaded goes with the body once the body is live, as the sidecar ties it
// (the bridge lists the file with every request, host.Session offers it
// to the engine each time), and is archived with it. Replay used to miss
// the file altogether: it knew a skill's folder only from a load it had
// already met, so the read was no skill's file.
func TestReplayEarlyRead(t *testing.T) {
	sb := newSessionBuilder(t, "early")
	usage := map[string]any{"input": 0, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1}
	call := func(id, name string, args map[string]any, result string) {
		sb.add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}},
			"provider": "fake", "model": "a", "usage": usage, "stopReason": "toolUse"})
		sb.add(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name, "content": []any{map[string]any{"type": "text", "text": result}}, "isError": false})
	}
	for turn := 1; turn <= 3; turn++ {
		prompt := "now do the beta work, all of the beta work"
		if turn == 1 {
			prompt = "alpha things please"
		}
		sb.add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}})
		if turn == 1 {
			call("g1", "read", map[string]any{"path": "/p/.agents/skills/alpha/references/guide.md"}, strings.Repeat("alpha guide line. ", 300))
			call("c1", "read", map[string]any{"path": "/p/.agents/skills/alpha/SKILL.md"}, "---\nname: alpha\ndescription: Alpha things.\n---\n\n"+strings.Repeat("alpha rule. ", 500))
		}
		sb.add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "provider": "fake", "model": "a", "usage": usage, "stopReason": "stop"})
	}
	cfg := rules.Default()
	cfg.MinKeep = 0
	cfg.CacheAware.Enabled = false
	rep := replayFile(t, sb.file(), Options{Decisions: true, Strategies: []StrategySpec{EngineSpec("ro", world(alphaBetaCatalog(), cfg))}})
	var archived []string
	for _, n := range rep.Branches[0].Strategies[1].Decisions {
		if n.Action == "archive" {
			archived = append(archived, n.Skill+": "+n.Text)
		}
	}
	if len(archived) != 1 || !strings.Contains(archived[0], "alpha") || !strings.Contains(archived[0], "with 1 file of its folder") {
		t.Errorf("archives %q, want alpha's with the guide read before it", archived)
	}
}
