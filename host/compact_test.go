package host

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func writeTestSkill(t *testing.T, dir, name, body string) HostSkill {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, "SKILL.md")
	data := "---\nname: " + name + "\ndescription: " + name + " things\n---\n\n" + body
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return HostSkill{Name: name, Description: name + " things", Path: p}
}

func TestReattachBlock(t *testing.T) {
	dir := t.TempDir()
	var long strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&long, "Step %03d: do the thing carefully and check the result.\n", i)
	}
	small := writeTestSkill(t, dir, "small", "Short instructions.\n")
	big := writeTestSkill(t, dir, "big", long.String())
	cat := NewIndex([]HostSkill{small, big})

	// Whole: the skill tool's own text and hash.
	block, r, ok := cat.reattachBlock(rules.ReattachItem{Skill: "small", Outcome: rules.ReattachWhole, Tokens: 100, Granted: 100})
	want := cat.loadSkill("small")
	if !ok || block != want.Text || r.Hash != want.Hash || r.Cut || r.Chars != int64(len(want.Text)) {
		t.Fatalf("whole block: ok %v cut %v hash %s (want %s)\n%s", ok, r.Cut, r.Hash, want.Hash, block)
	}

	// Cut: within the grant, ends at a line break, and the note's offset
	// is the file line of the first line left out.
	grant := int64(800)
	block, r, ok = cat.reattachBlock(rules.ReattachItem{Skill: "big", Outcome: rules.ReattachCut, Tokens: 6000, Granted: grant})
	if !ok || !r.Cut {
		t.Fatalf("cut block: ok %v cut %v", ok, r.Cut)
	}
	if got := rules.EstimateTokens(rules.RuneCount(block)); got > grant {
		t.Errorf("cut block takes %d tokens, over its grant of %d", got, grant)
	}
	if r.Hash == cat.loadSkill("big").Hash {
		t.Error("a cut block has the whole body's hash")
	}
	m := regexp.MustCompile(`offset (\d+)`).FindStringSubmatch(block)
	if m == nil {
		t.Fatalf("no offset in the note:\n%s", block)
	}
	off, _ := strconv.Atoi(m[1])
	data, _ := os.ReadFile(big.Path)
	lines := strings.Split(string(data), "\n")
	next := lines[off-1]
	if !strings.HasPrefix(next, "Step ") || strings.Contains(block, next) {
		t.Errorf("line %d of the file is %q: it should be the first step left out", off, next)
	}
	prev := lines[off-2]
	if !strings.Contains(block, prev) {
		t.Errorf("line %d (%q), just before the offset, is not in the block", off-1, prev)
	}

	// Too small a grant: nothing; an unknown skill: nothing.
	if _, _, ok := cat.reattachBlock(rules.ReattachItem{Skill: "big", Outcome: rules.ReattachCut, Tokens: 6000, Granted: 150}); ok {
		t.Error("a grant too small for any useful part gave a block")
	}
	if _, _, ok := cat.reattachBlock(rules.ReattachItem{Skill: "ghost", Outcome: rules.ReattachWhole, Granted: 100}); ok {
		t.Error("an unknown skill gave a block")
	}
	// A file grown since its load is cut to its grant.
	block, r, ok = cat.reattachBlock(rules.ReattachItem{Skill: "big", Outcome: rules.ReattachWhole, Tokens: 700, Granted: 700})
	if !ok || !r.Cut || rules.EstimateTokens(rules.RuneCount(block)) > 700 {
		t.Errorf("grown file: ok %v cut %v, %d tokens", ok, r.Cut, rules.EstimateTokens(rules.RuneCount(block)))
	}
	if lifecycle.HashBody("x") == "" {
		t.Fatal("no hash")
	}
}

func TestReattachSummary(t *testing.T) {
	res := SessionCompactResult{Plan: []rules.ReattachItem{
		{Skill: "a", Outcome: rules.ReattachWhole}, {Skill: "b", Outcome: rules.ReattachCut}, {Skill: "c", Outcome: rules.ReattachDropped},
	}}
	got := reattachSummary(res)
	for _, w := range []string{"1 skill(s) whole (a)", "1 cut (b)", "1 left out (c)"} {
		if !strings.Contains(got, w) {
			t.Errorf("summary %q lacks %q", got, w)
		}
	}
	if reattachSummary(SessionCompactResult{}) != "" {
		t.Error("a summary for an empty plan")
	}
}
