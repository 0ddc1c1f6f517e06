//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compactExtension is a test-only extension: /e2e-compact compacts the
// session (ctx.compact) and waits for it; its session_before_compact
// supplies the summary, so no model call is made for it.
const compactExtension = `export default function (pi: any) {
	pi.on("session_before_compact", async (event: any) => ({
		compaction: {
			summary: "E2E-SUMMARY-7d1f: the user asked about tides, then about bread and knots.",
			firstKeptEntryId: event.preparation.firstKeptEntryId,
			tokensBefore: event.preparation.tokensBefore,
		},
	}));
	pi.registerCommand("e2e-compact", {
		description: "compact the session now (e2e tests)",
		handler: async (_args: string, ctx: any) => {
			await new Promise<void>((resolve, reject) => ctx.compact({ onComplete: () => resolve(), onError: (e: Error) => reject(e) }));
			process.stdout.write("E2E-COMPACTED\n");
		},
	});
}
`

// knotsSkill has a body far over the per-skill re-attach budget the test
// sets (2,000 tokens): its head is re-attached, its tail is not.
func knotsSkill() Skill {
	var b strings.Builder
	b.WriteString("# Rope knots\n\nMarker: KNOTS-BODY-c3a9.\n\n")
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&b, "Knot %03d: pass the working end over, under and back through the loop.\n", i)
	}
	b.WriteString("\nMarker: KNOTS-TAIL-88e0.\n")
	return Skill{Name: "rope-knots", Description: "Tie rope knots for bags, boats and loads. Use when the user asks which knot to tie.", Body: b.String()}
}

// setKeepRecent makes Pi keep almost nothing verbatim at compaction.
func setKeepRecent(t *testing.T, env *Env, tokens int) {
	t.Helper()
	p := filepath.Join(env.AgentDir, "settings.json")
	var s map[string]any
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	s["compaction"] = map[string]any{"keepRecentTokens": tokens}
	writeJSONFile(t, p, s)
}

// TestBridgeCompactionPi16: after a compaction the next request holds the
// bodies the rules keep, re-attached as one message after the summary and
// within budget (the big one cut, with a note), not the archived one; a
// skill(x) for a re-attached body answers "already loaded". Archiving is
// relevance-only here, so the tide body is archived (not merely due) when
// the topic changes.
func TestBridgeCompactionPi16(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	const summaryMark = "E2E-SUMMARY-7d1f"
	script := func(r *Request) Reply {
		last := r.LastUserText()
		switch {
		case strings.Contains(last, "high tide") && r.Step == 0:
			return Do(Call{Name: "skill", Args: map[string]any{"name": "tide-tables"}})
		case strings.Contains(last, "proofing") && r.Step == 0:
			return Do(Call{Name: "skill", Args: map[string]any{"name": "bread-proofing"}}, Call{Name: "skill", Args: map[string]any{"name": "rope-knots"}})
		case strings.Contains(last, "Go on") && r.Step == 0:
			return Do(Call{Name: "skill", Args: map[string]any{"name": "bread-proofing"}})
		}
		return Say("Done.")
	}
	env, prov, _ := bridgeEnv(t, pi, script,
		`{"minKeep": 0, "cacheAware": {"enabled": false}, "dedupe": "already-loaded", "compaction": {"reattach": true, "budgetTokens": 25000, "perSkillTokens": 2000}}`)
	env.AddSkills(t, knotsSkill())
	setKeepRecent(t, env, 1)
	ext := filepath.Join(t.TempDir(), "compact.ts")
	if err := os.WriteFile(ext, []byte(compactExtension), 0o644); err != nil {
		t.Fatal(err)
	}

	env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"Plan the bread proofing for whole grain dough in a warm kitchen and pick a rope knot to close the bread bag.",
	}})
	before := len(prov.Requests())
	cres := env.RunOK(t, RunOpts{Approve: true, Continue: true, Extensions: []string{ext}, Prompts: []string{"/e2e-compact"}})
	// (Pi routes an extension's stdout to stderr in print mode.)
	if !strings.Contains(cres.Stdout+cres.Stderr, "E2E-COMPACTED") {
		t.Fatalf("compaction did not complete:\nstdout:\n%s\nstderr:\n%s", cres.Stdout, cres.Stderr)
	}
	if n := len(prov.Requests()); n != before {
		t.Errorf("the compaction run made %d model requests, want none", n-before)
	}
	res := env.RunOK(t, RunOpts{Approve: true, Continue: true, Prompts: []string{"Go on."}})
	checkNoBridgeErrors(t, res)

	reqs := prov.Requests()[before:]
	if len(reqs) != 2 {
		t.Fatalf("the run after compaction made %d requests, want 2", len(reqs))
	}
	first := reqs[0]
	sumAt, reAt := -1, -1
	for i, m := range first.Messages {
		txt := m.Text()
		if strings.Contains(txt, summaryMark) {
			sumAt = i
		}
		if strings.Contains(txt, "BREAD-BODY-5e18") {
			if reAt >= 0 {
				t.Errorf("the bread body is in messages %d and %d", reAt, i)
			}
			reAt = i
		}
	}
	if sumAt < 0 || reAt <= sumAt {
		t.Fatalf("summary at message %d, re-attached bodies at %d: want both, the bodies after the summary", sumAt, reAt)
	}
	region := first.Messages[reAt]
	text := region.Text()
	if region.Role != "user" || strings.Contains(text, summaryMark) {
		t.Errorf("the re-attach region is not a message of its own (role %s)", region.Role)
	}
	for _, c := range []struct {
		mark string
		want int
	}{{"BREAD-BODY-5e18", 1}, {"KNOTS-BODY-c3a9", 1}, {"KNOTS-TAIL-88e0", 0}, {"TIDE-BODY-41c7", 0}} {
		if n := CountInMessages(first, c.mark); n != c.want {
			t.Errorf("the first request after compaction holds %s %d times, want %d", c.mark, n, c.want)
		}
	}
	if !strings.Contains(text, "rope-knots was cut to fit the re-attach budget") || !strings.Contains(text, "offset ") {
		t.Errorf("the cut body has no note on reading the rest:\n%.2000s", text)
	}
	knots := text[strings.Index(text, `<skill_content name="rope-knots">`):]
	knots = knots[:strings.Index(knots, "</skill_content>")+len("</skill_content>")]
	if tok := (len([]rune(knots)) + 3) / 4; tok > 2000 {
		t.Errorf("the cut rope-knots block takes ~%d tokens, over its 2,000", tok)
	}
	if tok := (len([]rune(text)) + 3) / 4; tok > 25000 {
		t.Errorf("the re-attach region takes ~%d tokens, over 25,000", tok)
	}
	again := reqs[1].LastToolResults()
	if len(again) != 1 || !strings.HasPrefix(again[0].Text(), `Skill "bread-proofing" is already loaded`) {
		t.Errorf("skill(bread-proofing) after compaction answered %+v, want already loaded", again)
	}
	if n := CountInMessages(reqs[1], "BREAD-BODY-5e18"); n != 1 {
		t.Errorf("the second request holds the bread body %d times, want 1", n)
	}

	recs := records(t, MustReadSession(t, res.SessionFile))
	reattached := map[string]string{}
	compacted := 0
	for _, r := range recs {
		if r["action"] == "load" && r["kind"] == "reattach" {
			h, _ := r["hash"].(string)
			reattached[r["skill"].(string)] = h
		}
		if reason, ok := r["reason"].(map[string]any); ok && r["action"] == "archive" && reason["code"] == "compacted" {
			compacted++
		}
	}
	if len(reattached) != 2 || reattached["bread-proofing"] == "" || reattached["rope-knots"] == "" {
		t.Errorf("re-attach load records %v: want bread-proofing and rope-knots with hashes", reattached)
	}
	if _, ok := reattached["tide-tables"]; ok {
		t.Error("the archived tide-tables body was re-attached")
	}
	if compacted != 3 {
		t.Errorf("%d bodies archived as compacted, want 3 (bread-proofing, rope-knots, and the archived tide-tables)", compacted)
	}
}
