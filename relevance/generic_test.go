package relevance

import (
	"strings"
	"testing"
)

// first returns the best skill of a ranking, "" when none scored.
func first(rk Ranking) string {
	if len(rk.Results) == 0 {
		return ""
	}
	return rk.Results[0].Skill
}

// TestGenericWordsWeighDown: words that name no topic ("look like", "want",
// "something") once lost prompts to the one skill whose description
// happened to use them. A catalogue of four skills cannot show that they
// are common, so they are weighed down as generic words of the language;
// the prompt's topic word wins.
func TestGenericWordsWeighDown(t *testing.T) {
	docs := []Doc{
		{Name: "theme-slides", Description: "Apply the company theme to a slide deck: colors, fonts, logo placement."},
		{Name: "review-mockup", Description: "Review a page mockup and say what the final page should look like, before anyone builds it."},
		{Name: "write-release-notes", Description: "Write the changelog and release notes for a version."},
		{Name: "plan-sprint", Description: "Plan a sprint: goal, stories, estimates and capacity."},
	}
	ix := NewIndex(docs, DefaultParams())
	for _, p := range []string{
		"I want the deck to look like something our designers made, with our colors.",
		"Make the slides look like the rest of our fonts and colors.",
	} {
		if got := first(ix.Rank(p, DefaultMinSignal)); got != "theme-slides" {
			t.Errorf("%q: first %q, want theme-slides: %+v", p, got, ix.Rank(p, DefaultMinSignal).Results)
		}
	}
	// Generic words alone carry no topic.
	if rk := ix.Rank("Looks like something I want.", DefaultMinSignal); rk.Signal {
		t.Errorf("a prompt of generic words has a signal: %+v", rk)
	}
}

// TestSpreadDampsCommonWords: a word every skill's body uses at the same
// rate says nothing about which skill a prompt is for, however rare it is
// in the indexed fields; a word one body dwells on does.
func TestSpreadDampsCommonWords(t *testing.T) {
	var docs []Doc
	for _, n := range []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"} {
		docs = append(docs, Doc{Name: n + "-task", Description: "Handle the " + n + " work.",
			Body: "Open the ledger first. Check the ledger totals. " + strings.Repeat("Keep notes as you go. ", 3)})
	}
	// gamma's description happens to say "ledger", the word every body
	// uses; beta's body is the one about reconciliation.
	docs[2].Description = "Handle the gamma work in the ledger."
	docs[1].Body += "Reconciliation: match each reconciliation entry against the bank statement; reconciliation ends the month."
	ix := NewIndex(docs, DefaultParams())
	rk := ix.Rank("Run the ledger reconciliation.", DefaultMinSignal)
	if got := first(rk); got != "beta-task" {
		t.Errorf("first %q, want beta-task (the reconciliation body): %+v", got, rk.Results)
	}
	p := DefaultParams()
	p.Generic = 0
	if got := first(NewIndex(docs, p).Rank("Run the ledger reconciliation.", DefaultMinSignal)); got == "" {
		t.Errorf("without the spread damping nothing ranks")
	}
}

// TestBodyIsIndexed: a word only the body uses ranks its skill, below a
// match in the name or description; other skills' names and the body's
// negative sections are not the skill's words.
func TestBodyIsIndexed(t *testing.T) {
	docs := []Doc{
		{Name: "react-component", Description: "Build React components.",
			Body: "# React component\n\nDerive values during render instead of syncing them with useEffect.\n\n" +
				"## When not to use\n\nStyling bugs: load fix-css-layout. Flexbox alignment belongs there.\n"},
		{Name: "fix-css-layout", Description: "Fix CSS layout problems: overflow, z-index, sticky headers.",
			Body: "Check the parent container first. For hooks, see react-component."},
		{Name: "hooks-guide", Description: "Explain React hooks: useEffect, useMemo and their dependency arrays.", Body: "Hooks run after render."},
	}
	ix := NewIndex(docs, DefaultParams())
	rk := ix.Rank("Why does my useEffect loop?", DefaultMinSignal)
	if first(rk) != "hooks-guide" || len(rk.Results) < 2 || rk.Results[1].Skill != "react-component" {
		t.Errorf("useEffect: %+v, want hooks-guide (description) then react-component (body)", rk.Results)
	}
	// "flexbox" is in react-component's negative section only.
	rk = ix.Rank("Flexbox alignment is off.", DefaultMinSignal)
	for _, r := range rk.Results {
		if r.Skill == "react-component" {
			t.Errorf("flexbox: react-component scored from its negative section: %+v", rk.Results)
		}
	}
	// fix-css-layout's body names react-component: its words are not
	// fix-css-layout's.
	rk = ix.Rank("react component", DefaultMinSignal)
	for _, r := range rk.Results {
		if r.Skill == "fix-css-layout" {
			t.Errorf("a skill's name in another body counted for that body: %+v", rk.Results)
		}
	}
	p := DefaultParams()
	p.BodyWeight = 0
	if rk := NewIndex(docs, p).Rank("Why does my useEffect loop?", DefaultMinSignal); len(rk.Results) != 1 {
		t.Errorf("BodyWeight 0 still indexes bodies: %+v", rk.Results)
	}
}

func TestForBodySections(t *testing.T) {
	body := "# Plot\n\nintro\n\n## Do not use\n\nno1\n\n### Tables\n\nno2\n\n```\n# not a heading\n```\n\n## Steps\n\nyes\n"
	var pos, neg strings.Builder
	forBodySections(body, func(s string, negative bool) {
		if negative {
			neg.WriteString(s)
		} else {
			pos.WriteString(s)
		}
	})
	if p, n := pos.String(), neg.String(); !strings.Contains(p, "intro") || !strings.Contains(p, "yes") ||
		strings.Contains(p, "no1") || !strings.Contains(n, "no1") || !strings.Contains(n, "no2") || !strings.Contains(n, "not a heading") {
		t.Errorf("positive %q, negative %q", p, n)
	}
}

// TestBodyBudget: the index reads each body up to its share of
// bodyBudget, so the cost of indexing stays bounded however large the
// catalogue's bodies are; a word past the share is not indexed.
func TestBodyBudget(t *testing.T) {
	filler := strings.Repeat("Check the report and the summary again. ", bodyBudget/3/40+1000)
	docs := []Doc{
		{Name: "alpha", Description: "Write reports.", Body: filler + "Zanzibar.\n"},
		{Name: "beta", Description: "Read summaries.", Body: "Quixotic.\n" + filler},
		{Name: "gamma", Description: "Check things.", Body: filler},
	}
	ix := NewIndex(docs, DefaultParams())
	if got := first(ix.Rank("quixotic", 0)); got != "beta" {
		t.Errorf("a word at the start of a body: first %q, want beta", got)
	}
	if rk := ix.Rank("zanzibar", 0); len(rk.Results) != 0 {
		t.Errorf("a word past the body's share of %d bytes was indexed: %+v", bodyBudget, rk.Results)
	}
	// Alone in its catalogue the body is read whole.
	if got := first(NewIndex(docs[:1], DefaultParams()).Rank("zanzibar", 0)); got != "alpha" {
		t.Errorf("a body within its share: first %q, want alpha", got)
	}
}

// TestNameWordsKeepTheirWeight: in a catalogue of one pipeline's stages
// every text says "evaluate", so its spread weighs it down; but one skill
// is named for it, and a prompt saying it is about that skill. The ML
// pack's evaluate-ml-pipeline once ranked sixth of fifteen for "Evaluate
// the baseline." (score 0.31 of the best): the skill that was loaded lost
// its body on its own prompts. A word in one name of many keeps the weight
// of that name's rarity; a word most names share ("ml") gains nothing.
func TestNameWordsKeepTheirWeight(t *testing.T) {
	var docs []Doc
	for _, n := range []string{"frame", "build", "smoke", "audit", "review", "persist", "plot", "sync"} {
		docs = append(docs, Doc{Name: n + "-ml-stage", Description: "The " + n + " stage of the pipeline, then the next stage.",
			Body: "Evaluate the inputs. " + n + " them. Evaluate the result and record it."})
	}
	docs = append(docs,
		Doc{Name: "evaluate-ml-stage", Description: "Evaluate one learner with cross-validation and save the report.",
			Body: "Evaluate with the locked splitter. Save the scores."},
		Doc{Name: "model-ml-stage", Description: "Choose the baseline learner, then a model menu; evaluate candidates.",
			Body: "Start from the baseline. Lock the baseline before you evaluate a second baseline variant."},
		Doc{Name: "frame-ml-problem", Description: "Frame the task and lock a baseline and a metric.",
			Body: "The baseline is the reference every experiment is evaluated against."})
	ix := NewIndex(docs, DefaultParams())
	rk := ix.Rank("Evaluate the baseline.", DefaultMinSignal)
	for i, r := range rk.Results {
		if r.Skill == "evaluate-ml-stage" {
			if i >= 3 || r.Score < 0.5*rk.Best {
				t.Errorf("evaluate-ml-stage ranked #%d, score %.2f of best %.2f: want the top 3 and at least half the best: %+v", i+1, r.Score, rk.Best, rk.Results)
			}
			break
		}
	}
	// A word every name holds is no reason to rank: "stage" alone
	// scores every stage alike.
	rk = ix.Rank("Which stage?", DefaultMinSignal)
	if len(rk.Results) < 2 || rk.Results[0].Score > 1.5*rk.Results[len(rk.Results)-1].Score {
		t.Errorf(`"stage", in every name, should not single one skill out: %+v`, rk.Results)
	}
}
