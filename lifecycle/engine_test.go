package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/internal/wordrank"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// wordRanker builds a wordrank.Ranker over rules.Words: word -> skill -> points.
func wordRanker(points map[string]map[string]float64) wordrank.Ranker {
	return wordrank.Ranker{Words: rules.Words, Points: points}
}

// A small pack: "triage" routes to the others; "plot" is a helper the
// working skills call; "eda", "model", "ship" do the work.
var testRanker = wordRanker(map[string]map[string]float64{
	"triage":  {"triage": 9},
	"route":   {"triage": 4},
	"explore": {"eda": 9},
	"data":    {"eda": 5, "model": 1, "plot": 1},
	"plot":    {"plot": 9, "eda": 2},
	"chart":   {"plot": 6},
	"model":   {"model": 9},
	"fit":     {"model": 6},
	"deploy":  {"ship": 9},
	"release": {"ship": 6},
})

func testCatalog() Catalog {
	return Catalog{Skills: []SkillInfo{
		{Name: "triage", Description: "route a request to the right skill", Calls: []string{"eda", "model", "ship"}, Names: []string{"eda", "model", "plot", "ship"}},
		{Name: "eda", Description: "explore data before modelling", Calls: []string{"plot"}},
		{Name: "model", Description: "fit a model", Calls: []string{"plot"}},
		{Name: "plot", Description: "plot a chart", Role: skills.RoleHelper},
		{Name: "ship", Description: "deploy and release"},
	}, Ranker: testRanker}
}

// step is one event of a scenario, written compactly.
type step struct {
	ev   string // "prompt", "load", "start", "end", "pin", "unpin", "on", "off"
	arg  string // prompt text, or skill name
	id   string // body id for loads
	kind LoadKind
}

func prompt(text string) step       { return step{ev: "prompt", arg: text} }
func load(id, skill string) step    { return step{ev: "load", arg: skill, id: id, kind: ByTool} }
func cmdLoad(id, skill string) step { return step{ev: "load", arg: skill, id: id, kind: ByCommand} }
func pin(skill string) step         { return step{ev: "pin", arg: skill} }
func unpin(skill string) step       { return step{ev: "unpin", arg: skill} }
func evt(ev string) step            { return step{ev: ev} }
func runOf(steps ...step) []step    { return append(append([]step{evt("start")}, steps...), evt("end")) }
func seq(parts ...[]step) (out []step) { // flatten
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
func s(steps ...step) []step { return steps }

func (st step) event() Event {
	switch st.ev {
	case "prompt":
		return Event{Type: EvPrompt, Text: st.arg}
	case "load":
		return Event{Type: EvLoad, Load: &Load{ID: st.id, Skill: st.arg, Size: int64(100 * len(st.arg)), Kind: st.kind, Hash: "h-" + st.arg}}
	case "start":
		return Event{Type: EvRunStart}
	case "end":
		return Event{Type: EvRunEnd}
	case "pin":
		return Event{Type: EvPin, Skill: st.arg}
	case "unpin":
		return Event{Type: EvUnpin, Skill: st.arg}
	case "on", "off":
		return Event{Type: EvEnable, On: st.ev == "on"}
	case "request":
		return Event{Type: EvRequest}
	}
	panic("unknown step " + st.ev)
}

func drive(t testing.TB, e *Engine, steps []step) []Decision {
	t.Helper()
	var all []Decision
	for _, st := range steps {
		ds, err := e.Apply(st.event())
		if err != nil {
			t.Fatalf("%v: %v", st, err)
		}
		all = append(all, ds...)
	}
	return all
}

// cfg is the default configuration with relevance-only archiving (bodies
// the rules drop are archived at once), which the judgement tests assert.
func cfg(mod func(*rules.Config)) rules.Config {
	c := rules.Default()
	c.CacheAware.Enabled = false
	if mod != nil {
		mod(&c)
	}
	return c
}

// archivedCodes maps each archived body id to the code of its reason.
func archivedCodes(e *Engine) map[string]rules.Code {
	m := map[string]rules.Code{}
	for _, b := range e.Bodies() {
		if b.Archived {
			m[b.ID] = b.Reason.Code
		}
	}
	return m
}

func TestScenarios(t *testing.T) {
	type A = map[string]rules.Code
	tests := []struct {
		name  string
		cat   func(*Catalog)
		cfg   rules.Config
		steps []step
		want  A
		// texts: substrings expected in the reason of an archived body.
		texts map[string]string
	}{
		{"reload keeps only the latest copy",
			nil, cfg(nil),
			seq(s(prompt("explore the data please")), runOf(load("e1", "eda"), load("m1", "model"), load("e2", "eda"))),
			A{"e1": rules.ArchiveSuperseded}, map[string]string{"e1": "newer copy"}},
		{"reload de-duplication also between runs",
			nil, cfg(nil),
			seq(runOf(load("e1", "eda")), s(prompt("ok")), runOf(load("e2", "eda")), s(prompt("explore the data again please"))),
			A{"e1": rules.ArchiveSuperseded}, nil},
		{"prompt evicts the old irrelevant bodies, minKeep protects the recent",
			nil, cfg(nil),
			seq(runOf(load("s1", "ship"), load("e1", "eda"), load("m1", "model")),
				s(prompt("fit a model to the data"))),
			A{"s1": rules.ArchiveNotRelevant}, map[string]string{"s1": "not relevant to the prompt: no score"}},
		{"the current task's bodies stay at taskRelativeScore's lower bar",
			func(c *Catalog) {
				c.Ranker = wordRanker(map[string]map[string]float64{"deploy": {"ship": 10, "triage": 9, "eda": 8, "model": 5}})
			},
			cfg(nil),
			seq(runOf(load("m1", "model"), load("e1", "eda"), load("s1", "ship")), s(prompt("deploy it to staging now"))),
			A{}, nil},
		{"without the lower bar the run's first body goes",
			func(c *Catalog) {
				c.Ranker = wordRanker(map[string]map[string]float64{"deploy": {"ship": 10, "triage": 9, "eda": 8, "model": 5}})
			},
			cfg(func(c *rules.Config) { c.TaskRelativeScore = 0.65 }),
			seq(runOf(load("m1", "model"), load("e1", "eda"), load("s1", "ship")), s(prompt("deploy it to staging now"))),
			A{"m1": rules.ArchiveNotRelevant}, nil},
		{"mid-run load evicts unrelated bodies of earlier runs, not the same run",
			nil, cfg(nil),
			seq(runOf(load("s1", "ship")), s(prompt("explore the data and fit a model")),
				runOf(load("e1", "eda"), load("m1", "model"))),
			A{"s1": rules.ArchiveMidRun}, map[string]string{"s1": `superseded by skill "eda" loaded mid-run`}},
		{"helper mid-run evicts nothing",
			nil, cfg(nil),
			seq(runOf(load("s1", "ship")), runOf(load("p1", "plot"))),
			A{}, nil},
		{"helperSkills config makes a helper",
			nil, cfg(func(c *rules.Config) { c.HelperSkills = []string{"model"} }),
			seq(runOf(load("s1", "ship")), runOf(load("m1", "model"))),
			A{}, nil},
		{"an evicted dispatcher gets the hint",
			func(c *Catalog) { c.Skills[4].Calls = []string{"model"} },
			cfg(nil),
			seq(runOf(load("s1", "ship")), runOf(load("m1", "model"))),
			A{"s1": rules.ArchiveMidRun},
			map[string]string{"s1": `this body calls "model" — declare metadata.role: helper in "model"`}},
		{"dispatcher hint absent when the body does not call the new skill",
			nil, cfg(nil),
			seq(runOf(load("s1", "ship")), runOf(load("m1", "model"))),
			A{"s1": rules.ArchiveMidRun}, nil},
		{"protectCallers keeps the caller",
			func(c *Catalog) { c.Skills[4].Calls = []string{"model"} },
			cfg(func(c *rules.Config) { c.ProtectCallers = true }),
			seq(runOf(load("s1", "ship")), runOf(load("m1", "model"))),
			A{}, nil},
		{"protectLoader keeps the body loaded just before",
			nil, cfg(func(c *rules.Config) { c.ProtectLoader = true }),
			seq(runOf(load("s1", "ship")), runOf(load("e1", "eda")), runOf(load("m1", "model"))),
			A{"s1": rules.ArchiveMidRun}, nil},
		{"evictOnSkillLoad off: mid-run loads evict nothing",
			nil, cfg(func(c *rules.Config) { c.EvictOnSkillLoad = false }),
			seq(runOf(load("s1", "ship")), runOf(load("m1", "model"))),
			A{}, nil},
		{"declared entry is pinned",
			func(c *Catalog) { c.Skills[0].Role = skills.RoleEntry },
			cfg(func(c *rules.Config) { c.MinKeep = 0 }),
			seq(runOf(load("t1", "triage"), load("e1", "eda")), runOf(load("m1", "model")), s(prompt("deploy the release now"))),
			A{"e1": rules.ArchiveMidRun, "m1": rules.ArchiveNotRelevant}, nil},
		{"inferred entry is pinned",
			func(c *Catalog) { c.InferredEntry = "triage" },
			cfg(func(c *rules.Config) { c.MinKeep = 0 }),
			seq(runOf(load("t1", "triage")), runOf(load("m1", "model")), s(prompt("deploy the release now"))),
			A{"m1": rules.ArchiveNotRelevant}, nil},
		{"inference off: the inferred entry is not pinned",
			func(c *Catalog) { c.InferredEntry = "triage" },
			cfg(func(c *rules.Config) { c.MinKeep = 0; c.InferEntrySkill = false }),
			seq(runOf(load("t1", "triage")), runOf(load("m1", "model"))),
			A{"t1": rules.ArchiveMidRun}, nil},
		{"configured entry overrides the declared one",
			func(c *Catalog) { c.Skills[0].Role = skills.RoleEntry },
			cfg(func(c *rules.Config) { c.MinKeep = 0; c.EntrySkill = "eda" }),
			seq(runOf(load("t1", "triage"), load("e1", "eda")), runOf(load("s1", "ship"))),
			A{"t1": rules.ArchiveMidRun}, nil},
		{"configured entry that is not installed is ignored",
			func(c *Catalog) { c.Skills[0].Role = skills.RoleEntry },
			cfg(func(c *rules.Config) { c.MinKeep = 0; c.EntrySkill = "nope" }),
			seq(runOf(load("t1", "triage")), runOf(load("s1", "ship"))),
			A{}, nil},
		{"pinEntrySkill off",
			func(c *Catalog) { c.Skills[0].Role = skills.RoleEntry },
			cfg(func(c *rules.Config) { c.PinEntrySkill = false }),
			seq(runOf(load("t1", "triage")), runOf(load("s1", "ship"))),
			A{"t1": rules.ArchiveMidRun}, nil},
		{"pin vs maxKeep: the pinned body stays, the oldest unprotected goes",
			nil, cfg(func(c *rules.Config) { c.MaxKeep = 2; c.MinKeep = 1; c.EvictOnSkillLoad = false }),
			seq(s(pin("ship")), runOf(load("s1", "ship")), runOf(load("e1", "eda")), runOf(load("m1", "model")),
				runOf(load("p1", "plot")), s(prompt("plot the data and fit a model"))),
			A{"e1": rules.ArchiveOverMaxKeep, "m1": rules.ArchiveOverMaxKeep}, map[string]string{"e1": "over maxKeep (2"}},
		{"unpin overrides the config pin",
			nil, cfg(func(c *rules.Config) { c.Pinned = []string{"ship"} }),
			seq(s(unpin("ship")), runOf(load("s1", "ship")), runOf(load("m1", "model"))),
			A{"s1": rules.ArchiveMidRun}, nil},
		{"pinning an archived skill brings its latest copy back",
			nil, cfg(nil),
			seq(runOf(load("s1", "ship")), runOf(load("m1", "model")), s(pin("ship"))),
			A{}, nil},
		{"no-signal prompt evicts nothing",
			nil, cfg(func(c *rules.Config) { c.MinKeep = 0 }),
			seq(runOf(load("s1", "ship")), s(prompt("Yes, that one, go ahead with it."))),
			A{}, nil},
		{"short prompt skipped",
			nil, cfg(func(c *rules.Config) { c.MinKeep = 0 }),
			seq(runOf(load("s1", "ship")), s(prompt("Plot it."))),
			A{}, nil},
		{"same topic as the last judged prompt is skipped",
			nil, cfg(func(c *rules.Config) { c.MinKeep = 0 }),
			seq(s(prompt("explore the data for me")), runOf(load("s1", "ship"), load("e1", "eda")),
				s(prompt("please explore that data"))),
			A{}, nil},
		{"a topic change is judged",
			nil, cfg(func(c *rules.Config) { c.MinKeep = 0 }),
			seq(s(prompt("explore the data for me")), runOf(load("e1", "eda")), s(prompt("now deploy the release"))),
			A{"e1": rules.ArchiveNotRelevant}, nil},
		{"switched off: nothing archived, not even old copies",
			nil, cfg(nil),
			seq(s(evt("off")), runOf(load("s1", "ship"), load("s2", "ship")), runOf(load("m1", "model")),
				s(prompt("fit the model now please"))),
			A{}, nil},
		{"disabled by config, switched on",
			nil, cfg(func(c *rules.Config) { c.Enabled = false }),
			seq(s(evt("on")), runOf(load("s1", "ship")), runOf(load("m1", "model"))),
			A{"s1": rules.ArchiveMidRun}, nil},
		{"a /skill: body before the run belongs to that run",
			nil, cfg(nil),
			seq(s(prompt("deploy it please and fit"), cmdLoad("u1", "ship")), runOf(load("m1", "model"))),
			A{}, nil},
		{"a repeated load id is ignored",
			nil, cfg(nil),
			seq(runOf(load("e1", "eda"), load("e1", "eda"))),
			A{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := testCatalog()
			if tt.cat != nil {
				tt.cat(&cat)
			}
			e := New(cat, tt.cfg)
			drive(t, e, tt.steps)
			if d := cmp.Diff(tt.want, archivedCodes(e)); d != "" {
				t.Errorf("archived (-want +got):\n%s", d)
			}
			for id, sub := range tt.texts {
				var got string
				for _, b := range e.Bodies() {
					if b.ID == id && b.Reason != nil {
						got = b.Reason.Text
					}
				}
				if !strings.Contains(got, sub) {
					t.Errorf("reason of %s = %q, want it to contain %q", id, got, sub)
				}
			}
			arch := e.Archived()
			for _, b := range e.Bodies() {
				if b.Archived != (arch[b.ID] != "") {
					t.Errorf("Archived() and Bodies() disagree on %s", b.ID)
				}
				if b.Archived && !strings.Contains(b.Placeholder, `skill("`+b.Skill+`")`) {
					t.Errorf("placeholder %q does not say how to load %s again", b.Placeholder, b.Skill)
				}
			}
		})
	}
}

// TestDoNotLoadIsNotACall builds the catalog's calls with relevance's
// cross-references: a body that says "Do not load plot" does not call plot,
// so it gets no dispatcher hint and protectCallers does not keep it.
func TestDoNotLoadIsNotACall(t *testing.T) {
	mk := func(body string) []skills.Skill {
		return []skills.Skill{
			{Name: "eda-tool", Description: "explore data", Dir: "/p/eda-tool", Body: body},
			{Name: "plot-tool", Description: "plot a chart of data", Dir: "/p/plot-tool", Body: "# Plot\nDraw it."},
			{Name: "ship-tool", Description: "deploy and release", Dir: "/p/ship-tool", Body: "# Ship\n"},
		}
	}
	ranker := wordRanker(map[string]map[string]float64{"plot": {"plot-tool": 9}, "chart": {"plot-tool": 5}, "explore": {"eda-tool": 9}})
	tests := []struct {
		name      string
		body      string
		protect   bool
		wantCalls []string
		archived  bool
		hint      bool
	}{
		{"calls plot", "# EDA\nWhen a figure is needed, load `plot-tool`.", false, []string{"plot-tool"}, true, true},
		{"forbids plot", "# EDA\nDo not load `plot-tool` here; describe in words.", false, nil, true, false},
		{"calls plot, protectCallers", "# EDA\nWhen a figure is needed, load `plot-tool`.", true, []string{"plot-tool"}, false, false},
		{"forbids plot, protectCallers", "# EDA\nDo not load `plot-tool` here; describe in words.", true, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := CatalogOf(mk(tt.body), ranker)
			if d := cmp.Diff(tt.wantCalls, cat.Skills[0].Calls); d != "" {
				t.Fatalf("calls of eda-tool (-want +got):\n%s", d)
			}
			e := New(cat, cfg(func(c *rules.Config) { c.ProtectCallers = tt.protect }))
			drive(t, e, seq(runOf(load("e1", "eda-tool")), runOf(load("p1", "plot-tool"))))
			b := e.Bodies()[0]
			if b.Archived != tt.archived {
				t.Fatalf("archived = %v, want %v (%+v)", b.Archived, tt.archived, b.Reason)
			}
			if b.Archived {
				hint := strings.Contains(b.Reason.Text, "declare metadata.role: helper")
				if hint != tt.hint || (b.Reason.Calls != "") != tt.hint {
					t.Errorf("hint = %v, want %v: %q", hint, tt.hint, b.Reason.Text)
				}
			}
		})
	}
}

func TestDecisionsAreRecords(t *testing.T) {
	e := New(testCatalog(), cfg(nil))
	ds := drive(t, e, seq(runOf(load("s1", "ship")), s(pin("eda"), unpin("eda")), runOf(load("m1", "model")), s(evt("off"))))
	var got []Action
	for _, d := range ds {
		got = append(got, d.Action)
		if d.V != RecordVersion {
			t.Errorf("decision without version: %+v", d)
		}
	}
	want := []Action{ActRun, ActLoad, ActPin, ActUnpin, ActRun, ActLoad, ActArchive, ActEnabled}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("actions (-want +got):\n%s", d)
	}
	b, err := json.Marshal(ds[6])
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"v":1,"action":"archive","id":"s1","skill":"ship","reason":{"code":"superseded-mid-run","best":24,"of":1,"by":"model","text":"superseded by skill \"model\" loaded mid-run: no score against its name and description (best 24.00; kept: top 3 or score ≥ 15.60)"},"placeholder":"[skill-lifecycle: the instructions of skill \"ship\" were archived to save context. If you need them again, call the skill tool: skill(\"ship\").]"}`
	if string(b) != wantJSON {
		t.Errorf("archive record:\n got %s\nwant %s", b, wantJSON)
	}
}

func TestRestoreProblems(t *testing.T) {
	on := true
	recs := []Record{
		{V: 1, Action: ActLoad, ID: "a", Skill: "eda", Run: 1},
		{V: 1, Action: ActLoad, ID: "a", Skill: "eda", Run: 1},
		{V: 1, Action: ActArchive, ID: "zz", Skill: "eda"},
		{V: 1, Action: "explode"},
		{V: 1, Action: ActLoad},
		{V: 1, Action: ActEnabled},
		{V: 2, Action: ActEnabled, On: &on},
		{V: 1, Action: ActArchive, ID: "a", Skill: "eda"},
	}
	e := New(testCatalog(), cfg(nil))
	probs := e.onRestore(recs)
	var idx []int
	for _, p := range probs {
		idx = append(idx, p.Index)
		if p.Message == "" {
			t.Errorf("problem without message: %+v", p)
		}
	}
	if d := cmp.Diff([]int{1, 2, 3, 4, 5, 6}, idx); d != "" {
		t.Errorf("problem indices (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"a": rules.Placeholder("eda")}, e.Archived()); d != "" {
		t.Errorf("archived after restore (-want +got):\n%s", d)
	}
	if !e.Enabled() {
		t.Errorf("enabled record not applied")
	}
	if _, err := e.Apply(Event{Type: "nope"}); err == nil {
		t.Errorf("unknown event type accepted")
	}
	if _, err := e.Apply(Event{Type: EvLoad}); err == nil {
		t.Errorf("load event without load accepted")
	}
}

func TestExplain(t *testing.T) {
	cat := testCatalog()
	cat.Skills[0].Role = skills.RoleEntry
	ex := Explain(cat, cfg(func(c *rules.Config) { c.MinKeep = 1 }), []string{"triage", "ship", "eda", "ship", "model"}, "explore the data with a chart")
	type row struct {
		Skill string
		Keep  bool
		Code  rules.Code
	}
	var got []row
	for _, v := range ex.Decisions {
		got = append(got, row{v.Skill, v.Keep, v.Reason.Code})
	}
	want := []row{
		{"triage", true, rules.KeepEntry},
		{"ship", false, rules.ArchiveSuperseded},
		{"eda", true, rules.KeepRelevant},
		{"ship", false, rules.ArchiveNotRelevant},
		{"model", true, rules.KeepRecent},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("explain (-want +got):\n%s", d)
	}
	if ex.Entry != "triage" || ex.EntrySource != "declared" {
		t.Errorf("entry = %q (%q)", ex.Entry, ex.EntrySource)
	}
	short := Explain(cat, cfg(nil), []string{"ship", "eda", "model"}, "Review.")
	if short.Skipped == nil || short.Skipped.Code != rules.KeepShort {
		t.Errorf("a short prompt must be reported skipped: %+v", short.Skipped)
	}
}

func TestPreviewAndLiveCopy(t *testing.T) {
	e := New(testCatalog(), cfg(func(c *rules.Config) { c.MinKeep = 0 }))
	drive(t, e, seq(runOf(load("s1", "ship"), load("e1", "eda"), load("e2", "eda"))))
	before := e.State()
	p := e.Preview("explore the data in depth")
	var got []string
	for _, v := range p.Decisions {
		got = append(got, fmt.Sprintf("%s:%v:%s", v.ID, v.Keep, v.Reason.Code))
	}
	if d := cmp.Diff([]string{"s1:false:not-relevant", "e2:true:relevant"}, got); d != "" {
		t.Errorf("preview (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, e.State()); d != "" {
		t.Errorf("Preview changed the state:\n%s", d)
	}
	if b, ok := e.LiveCopy("eda"); !ok || b.ID != "e2" {
		t.Errorf("LiveCopy(eda) = %+v, %v", b, ok)
	}
	e.onPrompt("explore the data in depth")
	if _, ok := e.LiveCopy("ship"); ok {
		t.Errorf("LiveCopy(ship) found an archived body")
	}
}

func TestNilRanker(t *testing.T) {
	cat := testCatalog()
	cat.Ranker = nil
	e := New(cat, cfg(func(c *rules.Config) { c.MinKeep = 0 }))
	drive(t, e, seq(runOf(load("s1", "ship")), runOf(load("m1", "model")), s(prompt("deploy the release now"))))
	if len(e.Archived()) != 0 {
		t.Errorf("without a ranker nothing has topic signal, yet %v were archived", e.Archived())
	}
}

func TestReloadConfigAndCatalog(t *testing.T) {
	e := New(testCatalog(), cfg(func(c *rules.Config) { c.MinKeep = 0 }))
	drive(t, e, runOf(load("t1", "triage"), load("s1", "ship")))
	if ds := e.setConfig(cfg(func(c *rules.Config) { c.MinKeep = 0; c.Pinned = []string{"ship"} })); len(ds) != 0 {
		t.Errorf("SetConfig decided %v", ds)
	}
	if e.PinOf("ship") != rules.PinConfig || len(e.Config().Pinned) != 1 {
		t.Errorf("config reload not in force: %v", e.PinOf("ship"))
	}
	cat := testCatalog()
	cat.Skills[0].Role = skills.RoleEntry
	if ds := e.onCatalog(cat); len(ds) != 0 {
		t.Errorf("SetCatalog decided %v", ds)
	}
	if name, src := e.Entry(); name != "triage" || src != "declared" {
		t.Errorf("entry after re-index = %q (%s)", name, src)
	}
	drive(t, e, s(prompt("fit the model with the data now")))
	var live []string
	for _, b := range e.Loaded() {
		live = append(live, b.ID)
	}
	if d := cmp.Diff([]string{"t1", "s1"}, live); d != "" {
		t.Errorf("live bodies (-want +got):\n%s", d)
	}
	if e.HelperOf("plot") != "metadata.role: helper" || e.HelperOf("ship") != "" {
		t.Errorf("HelperOf: %q %q", e.HelperOf("plot"), e.HelperOf("ship"))
	}
}

// TestLargeBodyMidRun: with cache-aware archiving, a mid-run load does not
// keep a large body of an earlier run on its rank against the new skill
// (cacheAware.largeBodyChars): eda ranks second against "model fit a
// model to data" (model 27, eda 2), which topK 3 keeps, but its score is
// under half the best.
func TestLargeBodyMidRun(t *testing.T) {
	cat := Catalog{Skills: []SkillInfo{
		{Name: "eda", Description: "explore data"},
		{Name: "model", Description: "fit a model to data"},
	}, Ranker: wordRanker(map[string]map[string]float64{"model": {"model": 9}, "fit": {"model": 9}, "data": {"eda": 2}, "explore": {"eda": 9}})}
	tests := []struct {
		name string
		size int64
		mod  func(*rules.Config)
		due  bool
	}{
		{"large: due", 9000, nil, true},
		{"small: kept on rank", 7999, nil, false},
		{"largeBodyChars 0", 9000, func(c *rules.Config) { c.CacheAware.LargeBodyChars = 0 }, false},
		{"relevance-only", 9000, func(c *rules.Config) { c.CacheAware.Enabled = false }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rules.Default()
			if tt.mod != nil {
				tt.mod(&c)
			}
			e := New(cat, c)
			var ds []Decision
			for _, ev := range []Event{
				{Type: EvPrompt, Text: "explore the data"}, {Type: EvRunStart},
				{Type: EvLoad, Load: &Load{ID: "e1", Skill: "eda", Size: tt.size, Kind: ByTool}}, {Type: EvRunEnd},
				{Type: EvPrompt, Text: "fit a model"}, {Type: EvRunStart},
				{Type: EvLoad, Load: &Load{ID: "m1", Skill: "model", Size: 500, Kind: ByTool}},
			} {
				d, err := e.Apply(ev)
				if err != nil {
					t.Fatal(err)
				}
				ds = append(ds, d...)
			}
			var gone *Decision
			for i, d := range ds {
				if d.ID == "e1" && (d.Action == ActDue || d.Action == ActArchive) {
					gone = &ds[i]
				}
			}
			if (gone != nil) != tt.due {
				t.Fatalf("eda dropped = %v, want %v (decisions %+v)", gone != nil, tt.due, ds)
			}
			if gone != nil && (gone.Reason.Code != rules.ArchiveMidRun || !strings.Contains(gone.Reason.Text, "a body of 9000 characters is not kept on rank, largeBodyChars 8000")) {
				t.Errorf("reason: %+v", gone.Reason)
			}
			if b := e.Bodies()[0]; gone == nil && (b.Archived || b.Due != nil) {
				t.Errorf("eda is not live: %+v", e.Bodies()[0])
			}
		})
	}
}
