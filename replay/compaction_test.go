package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// compact appends a compaction entry keeping the entries from firstKept.
func (sb *sessionBuilder) compact(firstKept string) string {
	sb.n++
	sb.at = sb.at.Add(time.Second)
	id := fmt.Sprint("k", sb.n)
	b, err := json.Marshal(map[string]any{"type": "compaction", "id": id, "parentId": sb.parent, "timestamp": sb.at.Format(time.RFC3339Nano),
		"summary": "The user asked for alpha things; they were done.", "firstKeptEntryId": firstKept, "tokensBefore": 5000})
	if err != nil {
		sb.t.Fatal(err)
	}
	sb.parent = id
	sb.lines = append(sb.lines, string(b))
	return id
}

// TestReplayCompaction: replay drives a compaction through the host, as
// the sidecar takes session/compact: the body the compaction summarised
// away is archived as compacted, the session renders it again from the
// skill's file, and the region goes into the context after the summary,
// so the requests after it carry the body again. Replay used to leave
// compactions to the context builder alone: the engine never heard of
// them, and the body was gone from the context without a word.
func TestReplayCompaction(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("Alpha rule: check the alpha things twice. ", 60)
	for name, desc := range map[string]string{"alpha": "Alpha things.", "beta": "Beta's work."} {
		p := filepath.Join(dir, name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		text := "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n" + body
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat := skills.Discover(skills.Options{Paths: []string{dir}, NoDefaults: true})
	w := host.OfCatalog(cat, rules.Default())

	sb := newSessionBuilder(t, "compaction")
	usage := map[string]any{"input": 0, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1}
	say := func(text string) {
		sb.add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}, "provider": "fake", "model": "a", "usage": usage, "stopReason": "stop"})
	}
	sb.add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "alpha things please"}}})
	sb.add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": map[string]any{"path": "/p/.agents/skills/alpha/SKILL.md"}}},
		"provider": "fake", "model": "a", "usage": usage, "stopReason": "toolUse"})
	sb.add(map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": []any{map[string]any{"type": "text", "text": "---\nname: alpha\ndescription: Alpha things.\n---\n\n" + body}}, "isError": false})
	say("done")
	sb.add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "more alpha things"}}})
	kept := fmt.Sprint("e", sb.n)
	say("more done")
	cid := sb.compact(kept)
	sb.add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "and the last alpha things"}}})
	say("all done")

	keep := StrategySpec{Name: "bridge-keep", Bridge: true, New: func() Strategy { return KeepAll{} }}
	r := NewRunner(Options{Pack: PackOf(cat, nil), Prices: testPrices(), Series: true, Decisions: true, Strategies: []StrategySpec{EngineSpec("defaults", w), keep}})
	if err := r.AddFile(sb.file()); err != nil {
		t.Fatal(err)
	}
	rep := r.Report()
	var compacted bool
	for _, n := range rep.Branches[0].Strategies[1].Decisions {
		compacted = compacted || (n.Action == "archive" && n.Skill == "alpha" && n.Code == string(rules.ArchiveCompacted) && strings.Contains(n.Text, cid))
	}
	if !compacted {
		t.Errorf("no compacted archive of alpha: %+v", rep.Branches[0].Strategies[1].Decisions)
	}
	// After the compaction the bridge-less context holds the summary; the
	// session's requests hold alpha's body again, in the region.
	eng, kp := tokens(rep, 1), tokens(rep, 2)
	if len(eng) == 0 || len(eng) != len(kp) {
		t.Fatalf("series: %v and %v; decisions %+v", eng, kp, rep.Branches[0].Strategies[1].Decisions)
	}
	last := len(eng) - 1
	if want := len(body) / 4 / 2; eng[last]-kp[last] < want {
		t.Errorf("the request after the compaction: %d tokens with the region, %d without; want the body (%d tokens) back", eng[last], kp[last], len(body)/4)
	}
}
