package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEstimateTokens(t *testing.T) {
	for _, tt := range []struct{ chars, want int64 }{{-5, 0}, {0, 0}, {1, 1}, {4, 1}, {5, 2}, {20000, 5000}, {20001, 5001}} {
		if got := EstimateTokens(tt.chars); got != tt.want {
			t.Errorf("EstimateTokens(%d) = %d, want %d", tt.chars, got, tt.want)
		}
	}
}

// outcome is an item reduced to what the tests compare.
type outcome struct {
	ID        string
	Outcome   Outcome
	Granted   int64
	KeepChars int64
}

func outcomes(p ReattachPlan) []outcome {
	var out []outcome
	for _, it := range p.Items {
		out = append(out, outcome{it.ID, it.Outcome, it.Granted, it.KeepChars})
	}
	return out
}

func TestPlanReattach(t *testing.T) {
	tok := func(n int64) int64 { return n * CharsPerToken }
	many := make([]ReattachCandidate, 12)
	var manyWant []outcome
	for i := range many {
		// 12 bodies of 3,000 tokens: 8 fit in 25,000 (24,000), the 9th gets
		// the 1,000 left, cut to 920; the rest find 0 left.
		many[i] = ReattachCandidate{ID: fmt.Sprintf("b%02d", i), Skill: fmt.Sprintf("s%02d", i), Chars: tok(3000)}
		switch {
		case i < 8:
			manyWant = append(manyWant, outcome{many[i].ID, ReattachWhole, 3000, 0})
		case i == 8:
			manyWant = append(manyWant, outcome{many[i].ID, ReattachCut, 1000, tok(1000 - ReattachNoteTokens)})
		default:
			manyWant = append(manyWant, outcome{many[i].ID, ReattachDropped, 0, 0})
		}
	}
	def := DefaultCompaction()
	tests := []struct {
		name  string
		cfg   Compaction
		cands []ReattachCandidate
		want  []outcome
		used  int64
	}{
		{"nothing to re-attach", def, nil, nil, 0},
		{"many bodies", def, many, manyWant, 25000},
		{"one huge body is cut to its share", def,
			[]ReattachCandidate{{ID: "huge", Chars: tok(200000)}, {ID: "small", Chars: tok(100)}},
			[]outcome{{"huge", ReattachCut, 5000, tok(5000 - ReattachNoteTokens)}, {"small", ReattachWhole, 100, 0}}, 5100},
		{"exactly the share goes whole", def,
			[]ReattachCandidate{{ID: "a", Chars: tok(5000)}, {ID: "b", Chars: tok(5000) + 1}},
			[]outcome{{"a", ReattachWhole, 5000, 0}, {"b", ReattachCut, 5000, tok(5000 - ReattachNoteTokens)}}, 10000},
		{"zero budget", Compaction{Reattach: true, BudgetTokens: 0, PerSkillTokens: 5000},
			[]ReattachCandidate{{ID: "a", Chars: 4}, {ID: "b", Chars: tok(9000)}},
			[]outcome{{"a", ReattachDropped, 0, 0}, {"b", ReattachDropped, 0, 0}}, 0},
		{"negative budget counts as zero", Compaction{Reattach: true, BudgetTokens: -1, PerSkillTokens: -1},
			[]ReattachCandidate{{ID: "a", Chars: 4}},
			[]outcome{{"a", ReattachDropped, 0, 0}}, 0},
		{"empty body fits a zero budget", Compaction{Reattach: true},
			[]ReattachCandidate{{ID: "empty", Chars: 0}},
			[]outcome{{"empty", ReattachWhole, 0, 0}}, 0},
		{"reattach off", Compaction{Reattach: false, BudgetTokens: 25000, PerSkillTokens: 5000},
			[]ReattachCandidate{{ID: "a", Chars: 40}},
			[]outcome{{"a", ReattachDropped, 0, 0}}, 0},
		{"too little left to cut: dropped, a smaller later body still fits",
			Compaction{Reattach: true, BudgetTokens: 5250, PerSkillTokens: 5000},
			[]ReattachCandidate{{ID: "a", Chars: tok(5000)}, {ID: "b", Chars: tok(1000)}, {ID: "c", Chars: tok(200)}},
			[]outcome{{"a", ReattachWhole, 5000, 0}, {"b", ReattachDropped, 0, 0}, {"c", ReattachWhole, 200, 0}}, 5200},
		{"per-skill share too small to cut", Compaction{Reattach: true, BudgetTokens: 25000, PerSkillTokens: 250},
			[]ReattachCandidate{{ID: "a", Chars: tok(300)}, {ID: "b", Chars: tok(250)}},
			[]outcome{{"a", ReattachDropped, 0, 0}, {"b", ReattachWhole, 250, 0}}, 250},
	}
	for _, tt := range tests {
		p := PlanReattach(tt.cfg, tt.cands)
		if diff := cmp.Diff(tt.want, outcomes(p)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.name, diff)
		}
		if p.Used != tt.used {
			t.Errorf("%s: used %d, want %d", tt.name, p.Used, tt.used)
		}
		var sum int64
		for _, it := range p.Items {
			sum += it.Granted
			if it.Text == "" {
				t.Errorf("%s: item %s has no text", tt.name, it.ID)
			}
			if it.Outcome == ReattachDropped && !strings.HasPrefix(it.Text, "not re-attached") {
				t.Errorf("%s: dropped item %s: text %q", tt.name, it.ID, it.Text)
			}
		}
		if sum != p.Used || p.Used > int64(max(tt.cfg.BudgetTokens, 0)) {
			t.Errorf("%s: used %d, sum of grants %d, budget %d", tt.name, p.Used, sum, tt.cfg.BudgetTokens)
		}
		if got, want := len(p.Kept()), countKept(tt.want); got != want {
			t.Errorf("%s: Kept() has %d items, want %d", tt.name, got, want)
		}
	}
}

func countKept(os []outcome) int {
	n := 0
	for _, o := range os {
		if o.Outcome != ReattachDropped {
			n++
		}
	}
	return n
}

func TestCutBody(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		max   int64
		kept  string
		lines int
	}{
		{"fits", "a\nb\n", 10, "a\nb\n", 2},
		{"fits, no final newline", "a\nb", 3, "a\nb", 2},
		{"cut at the last line break", "one\ntwo\nthree\n", 9, "one\ntwo\n", 2},
		{"cut exactly after a line break", "one\ntwo\nthree\n", 8, "one\ntwo\n", 2},
		{"first line too long: cut mid-line", "abcdefgh\nij\n", 4, "abcd", 0},
		{"characters, not bytes", "héé\nü\nrest\n", 6, "héé\nü\n", 2},
		{"multibyte first line cut at a boundary", "ééééé\n", 3, "ééé", 0},
		{"zero", "abc\n", 0, "", 0},
		{"negative", "abc\n", -3, "", 0},
		{"empty body", "", 5, "", 0},
	}
	for _, tt := range tests {
		kept, lines := CutBody(tt.body, tt.max)
		if kept != tt.kept || lines != tt.lines {
			t.Errorf("%s: CutBody(%q, %d) = %q, %d; want %q, %d", tt.name, tt.body, tt.max, kept, lines, tt.kept, tt.lines)
		}
		if RuneCount(kept) > max(tt.max, 0) && kept != tt.body {
			t.Errorf("%s: kept %d characters, over %d", tt.name, RuneCount(kept), tt.max)
		}
	}
}

func TestReattachNote(t *testing.T) {
	n := ReattachNote("pandas", "/skills/pandas/SKILL.md", 120, 19680, 80000)
	for _, want := range []string{"pandas", "19680 of 80000", `"/skills/pandas/SKILL.md"`, "offset 120", `skill("pandas")`} {
		if !strings.Contains(n, want) {
			t.Errorf("note %q lacks %q", n, want)
		}
	}
	if EstimateTokens(RuneCount(n)) > ReattachNoteTokens {
		t.Errorf("note takes %d tokens, over the reserve of %d", EstimateTokens(RuneCount(n)), ReattachNoteTokens)
	}
}

func TestParseCompactionAndDedupe(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		want  Config
		diags []string // "key: severity" of each diagnostic (an error: the file is ignored, want is the defaults)
	}{
		{"defaults", `{}`, Default(), nil},
		{"both set", `{"dedupe": "archive-older", "compaction": {"reattach": false, "budgetTokens": 1000, "perSkillTokens": 500}}`,
			func() Config {
				c := Default()
				c.Dedupe = DedupeArchiveOlder
				c.Compaction = Compaction{Reattach: false, BudgetTokens: 1000, PerSkillTokens: 500}
				return c
			}(), nil},
		{"missing keys keep their defaults", `{"compaction": {"perSkillTokens": 2000}}`,
			func() Config { c := Default(); c.Compaction.PerSkillTokens = 2000; return c }(), nil},
		{"unknown compaction key", `{"compaction": {"budget": 3}}`, Default(), []string{"compaction.budget: warning"}},
		{"per-skill over total", `{"compaction": {"budgetTokens": 100, "perSkillTokens": 500}}`,
			func() Config {
				c := Default()
				c.Compaction.BudgetTokens, c.Compaction.PerSkillTokens = 100, 500
				return c
			}(),
			[]string{"compaction.perSkillTokens: warning"}},
		{"bad dedupe", `{"dedupe": "latest"}`, Default(), []string{"dedupe: error", ": error"}},
		{"context edits", `{"archiveVia": "context_edit"}`,
			func() Config { c := Default(); c.ArchiveVia = ArchiveViaContextEdit; return c }(), nil},
		{"context edits only", `{"archiveVia": "context_edit_only"}`,
			func() Config { c := Default(); c.ArchiveVia = ArchiveViaContextEditOnly; return c }(), nil},
		{"bad archiveVia", `{"archiveVia": "edit"}`, Default(), []string{"archiveVia: error", ": error"}},
		{"archiveVia not a string", `{"archiveVia": true}`, Default(), []string{"archiveVia: error", ": error"}},
		{"bad budget", `{"compaction": {"budgetTokens": -1}}`, Default(), []string{"compaction.budgetTokens: error", ": error"}},
		{"fractional budget", `{"compaction": {"budgetTokens": 10.5}}`, Default(), []string{"compaction.budgetTokens: error", ": error"}},
		{"not an object", `{"compaction": true}`, Default(), []string{"compaction: error", ": error"}},
		{"bad reattach", `{"compaction": {"reattach": "yes"}}`, Default(), []string{"compaction.reattach: error", ": error"}},
	}
	for _, tt := range tests {
		frag, ds := Parse([]byte(tt.src), "f.json")
		var got []string
		for _, d := range ds {
			got = append(got, fmt.Sprintf("%s: %s", d.Key, d.Severity))
			if d.Line == 0 && d.Key != "" {
				t.Errorf("%s: diagnostic %q has no line", tt.name, d)
			}
		}
		if diff := cmp.Diff(tt.diags, got); diff != "" {
			t.Errorf("%s: diagnostics (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.want, Merge(frag, Fragment{}, Trusted)); diff != "" {
			t.Errorf("%s: config (-want +got):\n%s", tt.name, diff)
		}
	}
}
