package replay

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

func testdata(name string) string { return filepath.Join(repoRoot(), "testdata", "replay", name) }

// Hand-serialised messages of testdata/replay, as the scripted provider
// measures them (each with its leading comma).
const (
	sU1   = `,{"role":"user","content":[{"type":"text","text":"hi"}]}`
	sA1   = `,{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"/p/.agents/skills/alpha/SKILL.md\"}"}}]}`
	sR1   = `,{"role":"tool","content":"ALPHA BODY","tool_call_id":"c1"}`
	sA2   = `,{"role":"assistant","content":"done"}`
	sU2   = `,{"role":"user","content":[{"type":"text","text":"next"}]}`
	sA3   = `,{"role":"assistant","content":"ok"}`
	sU3   = `,{"role":"user","content":[{"type":"text","text":"switch"}]}`
	trail = `]`
)

func n(parts ...string) int {
	t := 0
	for _, p := range parts {
		t += utf8.RuneCountInString(p)
	}
	return t
}

func ceil4(chars int) int  { return (chars + 3) / 4 }
func floor4(chars int) int { return chars / 4 }

// prices: input 1 USD per million tokens (read 0.1, write 1.25), output 2.
func testPrices() *pricing.Table {
	t := pricing.NewTable()
	t.Default = pricing.Prices{Input: 1, Output: 2}
	return t
}

type req struct{ prompt, read int }

func expectCost(reqs []req, outTokens int) (cost float64, read, write int) {
	for _, r := range reqs {
		read += r.read
		write += r.prompt - r.read
	}
	return (float64(read)*0.1 + float64(write)*1.25 + float64(outTokens)*2) / 1e6, read, write
}

func run(t *testing.T, opts Options, files ...string) *Report {
	t.Helper()
	if opts.Prices == nil {
		opts.Prices = testPrices()
	}
	opts.Series = true
	r := NewRunner(opts)
	for _, f := range files {
		if err := r.AddFile(testdata(f)); err != nil {
			t.Fatal(err)
		}
	}
	rep := r.Report()
	if len(rep.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", rep.Diagnostics)
	}
	return rep
}

func tokens(rep *Report, strategy int) []int {
	var out []int
	for _, p := range rep.Series[strategy] {
		out = append(out, p.Tokens)
	}
	return out
}

func approxEq(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestCacheSplitGapAndModelSwitch(t *testing.T) {
	// No recorded prompt usage: header 0, 4 characters a token.
	l1 := n(sU1, trail)
	l2 := n(sU1, sA1, sR1, trail)
	l3 := n(sU1, sA1, sR1, sA2, sU2, trail)
	l4 := n(sU1, sA1, sR1, sA2, sU2, sA3, sU3, trail)
	tests := []struct {
		name string
		ttl  time.Duration
		reqs []req
		cold int
	}{
		{
			// a2 comes 1 minute after a1: it reads u1 from the cache. a3
			// comes 10 minutes later: past 5 minutes, cold. a4 switches
			// model: cold.
			name: "5 minute lifetime",
			ttl:  5 * time.Minute,
			reqs: []req{{ceil4(l1), 0}, {ceil4(l2), floor4(n(sU1))}, {ceil4(l3), 0}, {ceil4(l4), 0}},
			cold: 3,
		},
		{
			// Without a lifetime the 10-minute gap keeps the cache warm;
			// the model switch still makes it cold.
			name: "no lifetime",
			ttl:  0,
			reqs: []req{{ceil4(l1), 0}, {ceil4(l2), floor4(n(sU1))}, {ceil4(l3), floor4(n(sU1, sA1, sR1))}, {ceil4(l4), 0}},
			cold: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := run(t, Options{TTL: tc.ttl}, "cache.jsonl")
			ka := rep.Strategies[0]
			cost, read, write := expectCost(tc.reqs, 4*5)
			var wantTok []int
			for _, r := range tc.reqs {
				wantTok = append(wantTok, r.prompt)
			}
			if d := cmp.Diff(wantTok, tokens(rep, 0)); d != "" {
				t.Errorf("prompt tokens per request (-want +got):\n%s", d)
			}
			got := []int{ka.Requests, ka.CacheReadTokens, ka.CacheWriteTokens, ka.ColdRequests, ka.OutputTokens}
			if d := cmp.Diff([]int{4, read, write, tc.cold, 20}, got); d != "" {
				t.Errorf("requests, read, write, cold, output (-want +got):\n%s", d)
			}
			if !approxEq(ka.CostUSD, cost) {
				t.Errorf("cost %.12f, want %.12f", ka.CostUSD, cost)
			}
		})
	}
}

func TestCompactionChangesContext(t *testing.T) {
	const (
		a1  = `,{"role":"assistant","content":"one"}`
		u2  = `,{"role":"user","content":[{"type":"text","text":"more"}]}`
		a2  = `,{"role":"assistant","content":"two"}`
		sum = `,{"role":"user","content":[{"type":"text","text":"The conversation history before this point was compacted into the following summary:\n\n<summary>\nSUM\n</summary>"}]}`
		u3  = `,{"role":"user","content":[{"type":"text","text":"again"}]}`
		// the summary and "hi" share the start of a user message
		shared = `,{"role":"user","content":[{"type":"text","text":"`
	)
	rep := run(t, Options{}, "compaction.jsonl")
	// sum's JSON escapes its newlines: count them as written above, where
	// \n is two characters.
	l3 := n(sum, u2, a2, u3, trail)
	reqs := []req{
		{ceil4(n(sU1, trail)), 0},
		// the previous request ended with "]" where this one has a1
		{ceil4(n(sU1, a1, u2, trail)), floor4(n(sU1))},
		{ceil4(l3), floor4(n(shared))},
	}
	var want []int
	for _, r := range reqs {
		want = append(want, r.prompt)
	}
	if d := cmp.Diff(want, tokens(rep, 0)); d != "" {
		t.Errorf("prompt tokens (-want +got):\n%s", d)
	}
	cost, read, _ := expectCost(reqs, 15)
	ka := rep.Strategies[0]
	if ka.CacheReadTokens != read || !approxEq(ka.CostUSD, cost) {
		t.Errorf("read %d cost %.12f, want %d %.12f", ka.CacheReadTokens, ka.CostUSD, read, cost)
	}
}

func TestBranches(t *testing.T) {
	const (
		a1  = `,{"role":"assistant","content":"one"}`
		u2a = `,{"role":"user","content":[{"type":"text","text":"left"}]}`
		bs  = `,{"role":"user","content":[{"type":"text","text":"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nwent left</summary>"}]}`
		u2b = `,{"role":"user","content":[{"type":"text","text":"right"}]}`
	)
	right := []int{ceil4(n(sU1, trail)), ceil4(n(sU1, a1, bs, u2b, trail))}
	left := []int{ceil4(n(sU1, trail)), ceil4(n(sU1, a1, u2a, trail))}
	tests := []struct {
		all      bool
		want     []int
		sessions int
	}{
		{false, right, 1},
		{true, append(append([]int{}, left...), right...), 2},
	}
	for _, tc := range tests {
		rep := run(t, Options{AllBranches: tc.all}, "branches.jsonl")
		if d := cmp.Diff(tc.want, tokens(rep, 0)); d != "" {
			t.Errorf("all=%v: prompt tokens (-want +got):\n%s", tc.all, d)
		}
		if s := rep.Strategies[0].Sessions; s != tc.sessions {
			t.Errorf("all=%v: %d branches replayed, want %d", tc.all, s, tc.sessions)
		}
	}
}

// scripted archives the first load when the second prompt arrives; a
// later copy of the same skill stays live.
type scripted struct {
	prompts int
	first   string
	loads   map[string]string // id -> skill
	arch    map[string]string
}

func (s *scripted) Observe(ev Event) {
	switch ev.Type {
	case lifecycle.EvPrompt:
		s.prompts++
		if s.prompts == 2 && s.first != "" {
			s.arch = map[string]string{s.first: "[archived " + s.loads[s.first] + "]"}
		}
	case lifecycle.EvLoad:
		if s.loads == nil {
			s.loads = map[string]string{}
		}
		if s.first == "" {
			s.first = ev.Load.ID
		}
		s.loads[ev.Load.ID] = ev.Load.Skill
	}
}

func (s *scripted) Archived() map[string]string { return s.arch }

func TestArchiveOrphanUseAndReload(t *testing.T) {
	spec := StrategySpec{Name: "scripted", New: func() Strategy { return &scripted{} }}
	rep := run(t, Options{Strategies: []StrategySpec{spec}}, "orphan.jsonl")
	ka, sc := rep.Strategies[0], rep.Strategies[1]
	got := [][]int{{ka.Requests, ka.OrphanUses, ka.Reloads, ka.Archives}, {sc.Requests, sc.OrphanUses, sc.Reloads, sc.Archives}}
	// The scripted strategy archives alpha at the second prompt; the
	// next tool call reads a file in alpha's folder: one orphan use, and
	// a reload request before it.
	want := [][]int{{4, 0, 0, 0}, {5, 1, 1, 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requests, orphans, reloads, archives (-want +got):\n%s", d)
	}
	const (
		u1   = `,{"role":"user","content":[{"type":"text","text":"load alpha"}]}`
		a2   = `,{"role":"assistant","content":"done"}`
		u2   = `,{"role":"user","content":[{"type":"text","text":"other topic"}]}`
		ph   = `,{"role":"tool","content":"[archived alpha]","tool_call_id":"c1"}`
		call = `,{"role":"assistant","content":null,"tool_calls":[{"id":"skill-lifecycle-reload-1","type":"function","function":{"name":"read","arguments":"{\"path\":\"/p/.agents/skills/alpha/SKILL.md\"}"}}]}`
		body = `,{"role":"tool","content":"ALPHA BODY","tool_call_id":"skill-lifecycle-reload-1"}`
	)
	wantTok := []int{
		ceil4(n(u1, trail)),
		ceil4(n(u1, sA1, sR1, trail)),
		ceil4(n(u1, sA1, ph, a2, u2, trail)),             // the reload request
		ceil4(n(u1, sA1, ph, a2, u2, call, body, trail)), // a3, after the reload
	}
	if d := cmp.Diff(wantTok, tokens(rep, 1)[:4]); d != "" {
		t.Errorf("scripted prompt tokens (-want +got):\n%s", d)
	}
	var seqs []int
	for _, p := range rep.Series[1] {
		seqs = append(seqs, p.Seq)
	}
	if d := cmp.Diff([]int{0, 1, 2, 2, 3}, seqs); d != "" {
		t.Errorf("chart positions: the reload shares the number of the request it precedes (-want +got):\n%s", d)
	}
	if rep.Strategies[1].PeakContext <= rep.Strategies[0].PeakContext {
		t.Errorf("the reload should make the peak larger than keep-all's: %d vs %d", rep.Strategies[1].PeakContext, rep.Strategies[0].PeakContext)
	}
}

func TestDetectLoads(t *testing.T) {
	s, err := session.ReadFile(testdata("loads.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	br := s.Branch(s.Leaf())
	type got struct{ ID, Skill, Kind, Folder, Body string }
	collect := func(p *Pack) []got {
		var out []got
		info := detect(p, br, s.Header.Cwd)
		for _, e := range br {
			for _, l := range info.loads[e] {
				out = append(out, got{l.ID, l.Skill, string(l.Kind), l.Folder, l.Body})
			}
		}
		return out
	}
	beta := got{"user:1767225601000:beta", "beta", "command", "/pack/beta", "<skill name=\"beta\" location=\"/pack/beta/SKILL.md\">\nReferences are relative to /pack/beta.\n\nBETA BODY\n</skill>"}
	gamma := got{"c1", "gamma", "tool", "", "<skill_content name=\"gamma\">\nGAMMA BODY\n</skill_content>"}
	notes := got{"c2", "notes", "read", "/elsewhere/notes", "NOTES"}
	// With a pack, only its skills count; without, any SKILL.md does. The
	// failed read of delta is no load either way.
	pack := &Pack{Names: map[string]bool{"beta": true, "gamma": true, "delta": true}}
	if d := cmp.Diff([]got{beta, gamma}, collect(pack)); d != "" {
		t.Errorf("with pack (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]got{beta, gamma, notes}, collect(nil)); d != "" {
		t.Errorf("without pack (-want +got):\n%s", d)
	}
	if p := promptText(br[0].Message); p != "please" {
		t.Errorf("prompt text %q, want the arguments after the skill block", p)
	}
}

// Sessions recorded by real Pi (0.73.1 and 1.6) in the end-to-end tests:
// keep-all reproduces every recorded prompt and uncached input exactly.
func TestE2ESessionsReproduceRecordedUsage(t *testing.T) {
	for _, f := range []string{"pi073-read-skill.jsonl", "pi16-noext-three-turns.jsonl"} {
		r := NewRunner(Options{TTL: DefaultTTL})
		if err := r.AddFile(filepath.Join(repoRoot(), "testdata", "sessions", f)); err != nil {
			t.Fatal(err)
		}
		rep := r.Report()
		b := rep.Branches[0]
		a := b.Accuracy
		if len(rep.Diagnostics) > 0 || b.Calibration.Method != "exact" || a.Compared != b.Requests || a.PromptExact != a.Compared || a.InputExact != a.Compared {
			t.Errorf("%s: diagnostics %v, calibration %+v, accuracy %+v over %d requests", f, rep.Diagnostics, b.Calibration, a, b.Requests)
		}
	}
}

// The positions handed to the engine: each body's message, in characters
// from the start of the request (header included).
func TestBodyPositions(t *testing.T) {
	s, err := session.ReadFile(testdata("loads.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(Options{Pack: &Pack{Names: map[string]bool{"beta": true, "gamma": true}}})
	b := r.newBranch(s.Branch(s.Leaf()), s.Header.Cwd)
	const header = 100
	rb := b.newBuilder(pricing.Segment{Hash: 1, Len: header}, 0, nil)
	cb := session.NewContextBuilder(b.br)
	var got []bodyPos
	for !cb.Done() {
		if e := cb.Peek(); e.ID == "a2" {
			rb.request(cb, nil, nil, nil, 0, e)
			got = rb.positions()
		}
		cb.Step()
	}
	const (
		u1 = `,{"role":"user","content":[{"type":"text","text":"<skill name=\"beta\" location=\"/pack/beta/SKILL.md\">\nReferences are relative to /pack/beta.\n\nBETA BODY\n</skill>\n\nplease"}]}`
		a1 = `,{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"skill","arguments":"{\"name\":\"gamma\"}"}},{"id":"c2","type":"function","function":{"name":"read","arguments":"{\"path\":\"/elsewhere/notes/SKILL.md\"}"}},{"id":"c3","type":"function","function":{"name":"read","arguments":"{\"path\":\"/x/delta/SKILL.md\"}"}}]}`
		r1 = `,{"role":"tool","content":"<skill_content name=\"gamma\">\nGAMMA BODY\n</skill_content>","tool_call_id":"c1"}`
	)
	want := []bodyPos{{"user:1767225601000:beta", header, n(u1)}, {"c1", header + n(u1, a1), n(r1)}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("positions (-want +got):\n%s", d)
	}
}

// recorder archives nothing and keeps the requests it is told about.
type recorder struct{ reqs []lifecycle.Request }

func (r *recorder) Observe(ev Event) {
	if ev.Type == lifecycle.EvRequest {
		r.reqs = append(r.reqs, *ev.Request)
	}
}
func (r *recorder) Archived() map[string]string { return nil }

func TestRequestEventsForTheEngine(t *testing.T) {
	rec := &recorder{}
	spec := StrategySpec{Name: "rec", New: func() Strategy { rec.reqs = nil; return rec }}
	type row struct {
		Number             int
		Since              time.Duration
		Cold, ModelChanged bool
		Total, ChangedFrom int64
		Bodies             []lifecycle.BodyPosition
	}
	rows := func() []row {
		var out []row
		for _, r := range rec.reqs {
			out = append(out, row{r.Number, r.SincePrevious, r.CacheCold, r.ModelChanged, r.Total, r.ChangedFrom, r.Bodies})
		}
		return out
	}
	// The engine is told what the bridge would tell it: the time since the
	// previous request and a model change; a pause past the 5-minute
	// lifetime is not "known cold" (the engine weighs it with
	// coldConfidence), though the pricing writes that request whole.
	run(t, Options{TTL: 5 * time.Minute, Strategies: []StrategySpec{spec}}, "cache.jsonl")
	body := []lifecycle.BodyPosition{{ID: "c1", Offset: int64(n(sU1, sA1)), Size: int64(n(sR1))}}
	want := []row{
		{1, 0, false, false, int64(n(sU1, trail)), 0, nil},
		{2, 58 * time.Second, false, false, int64(n(sU1, sA1, sR1, trail)), 0, body},
		{3, 601 * time.Second, false, false, int64(n(sU1, sA1, sR1, sA2, sU2, trail)), 0, body}, // 10 minutes later
		{4, 2 * time.Second, false, true, int64(n(sU1, sA1, sR1, sA2, sU2, sA3, sU3, trail)), 0, body},
	}
	if d := cmp.Diff(want, rows()); d != "" {
		t.Errorf("cache.jsonl requests (-want +got):\n%s", d)
	}
	// After a compaction the request differs from the previous one after
	// the start of its first message; the cache is known to be cold.
	run(t, Options{Strategies: []StrategySpec{spec}}, "compaction.jsonl")
	got := rows()
	shared := int64(n(`,{"role":"user","content":[{"type":"text","text":"`))
	if len(got) != 3 || got[2].ChangedFrom != shared || !got[2].Cold || got[1].Cold || got[1].ChangedFrom != 0 {
		t.Errorf("compaction.jsonl requests: %+v", got)
	}
}

// A session recorded with the bridge on: its requests carried the
// placeholder from the recorded archive decision on. Calibration applies
// the records, so the recorded usage is reproduced exactly, and the
// recorded strategy prices what was sent.
func TestRecordedDecisions(t *testing.T) {
	const (
		header = 401
		u1     = `,{"role":"user","content":[{"type":"text","text":"load alpha"}]}`
		a2     = `,{"role":"assistant","content":"done"}`
		u2     = `,{"role":"user","content":[{"type":"text","text":"other topic"}]}`
		ph     = `,{"role":"tool","content":"[gone]","tool_call_id":"c1"}`
	)
	// Recorded prompt tokens of each request, as the scripted provider
	// counts them: ceil((header + characters) / 4), cached floor(prefix / 4).
	p1 := ceil4(header + n(u1, trail))
	p2 := ceil4(header + n(u1, sA1, sR1, trail))
	c2 := floor4(header + n(u1))
	p4 := ceil4(header + n(u1, sA1, ph, a2, u2, trail))
	c4 := floor4(header + n(u1, sA1, `,{"role":"tool","content":"`)) // the placeholder shares its message's start
	usage := func(prompt, cached int) string {
		return fmt.Sprintf(`"usage":{"input":%d,"output":1,"cacheRead":%d,"cacheWrite":0,"totalTokens":0}`, prompt-cached, cached)
	}
	lines := []string{
		`{"type":"session","version":3,"id":"rec","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"load alpha"}],"timestamp":1767225601000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"/p/.agents/skills/alpha/SKILL.md"}}],"provider":"fake","model":"a",` + usage(p1, 0) + `,"stopReason":"toolUse","timestamp":1767225602000}}`,
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ALPHA BODY"}],"isError":false,"timestamp":1767225603000}}`,
		`{"type":"message","id":"a2","parentId":"k0","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"provider":"fake","model":"a",` + usage(p2, c2) + `,"stopReason":"stop","timestamp":1767225604000}}`,
		`{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"other topic"}],"timestamp":1767225605000}}`,
		`{"type":"custom","id":"k0","parentId":"r1","timestamp":"2026-01-01T00:00:03.500Z","customType":"skill-lifecycle","data":{"v":1,"action":"load","id":"c1","skill":"alpha","kind":"read","size":10,"run":1}}`,
		`{"type":"custom","id":"k1","parentId":"u2","timestamp":"2026-01-01T00:00:05.500Z","customType":"skill-lifecycle","data":{"v":1,"action":"archive","id":"c1","skill":"alpha","placeholder":"[gone]"}}`,
		`{"type":"message","id":"a3","parentId":"k1","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"fin"}],"provider":"fake","model":"a",` + usage(p4, c4) + `,"stopReason":"stop","timestamp":1767225606000}}`,
	}
	file := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(Options{Strategies: []StrategySpec{RecordedSpec()}, Series: true, Prices: testPrices()})
	if err := r.AddFile(file); err != nil {
		t.Fatal(err)
	}
	rep := r.Report()
	b := rep.Branches[0]
	if b.Calibration.Method != "exact" || b.Calibration.HeaderChars > header || b.Accuracy.PromptExact != 3 || b.Accuracy.InputExact != 3 {
		t.Errorf("calibration %+v, accuracy %+v", b.Calibration, b.Accuracy)
	}
	if d := cmp.Diff([]int{p1, p2, p4}, tokens(rep, 1)); d != "" {
		t.Errorf("recorded strategy prompt tokens (-want +got):\n%s", d)
	}
	if ka, rc := rep.Strategies[0], rep.Strategies[1]; rc.Archives != 1 || ka.PeakContext <= rc.PeakContext {
		t.Errorf("keep-all %+v, recorded %+v", ka, rc)
	}
}

// world is a world over cat under cfg, for the strategies of a test.
func world(cat lifecycle.Catalog, cfg rules.Config) *host.World {
	return &host.World{Skills: host.NewIndex(nil), Catalog: cat, Config: cfg}
}
