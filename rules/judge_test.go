package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/internal/wordrank"
)

// wordRanker builds a wordrank.Ranker over rules.Words: word -> skill -> points.
func wordRanker(points map[string]map[string]float64) wordrank.Ranker {
	return wordrank.Ranker{Words: Words, Points: points}
}

// ranker: "plot" → plot 10, eda 2; "data" → eda 6, clean 5, plot 1, model 1;
// "model" → model 9, eval 3; "deploy" → ship 8; "hello" → hi 1 (weak).
var ranker = wordRanker(map[string]map[string]float64{
	"plot":   {"plot": 10, "eda": 2},
	"data":   {"eda": 6, "clean": 5, "plot": 1, "model": 1},
	"model":  {"model": 9, "eval": 3},
	"deploy": {"ship": 8},
	"hello":  {"hi": 1},
})

type verdictSummary struct {
	Skill string
	Keep  bool
	Code  Code
}

func summarize(vs []Verdict) []verdictSummary {
	out := make([]verdictSummary, len(vs))
	for i, v := range vs {
		out[i] = verdictSummary{v.Skill, v.Keep, v.Reason.Code}
	}
	return out
}

func bodies(names ...string) []Body {
	bs := make([]Body, len(names))
	for i, n := range names {
		bs[i] = Body{ID: "id-" + n, Skill: n, Run: 1}
	}
	return bs
}

// large makes the bodies of the skills large (cacheAware.largeBodyChars,
// 8,000 characters by default): 9,000 characters.
func large(bs []Body, skills ...string) []Body {
	for i := range bs {
		if slices.Contains(skills, bs[i].Skill) {
			bs[i].Size = 9000
		}
	}
	return bs
}

func cfgWith(mod func(*Config)) Config {
	c := Default()
	if mod != nil {
		mod(&c)
	}
	return c
}

func TestJudgePrompt(t *testing.T) {
	type V = verdictSummary
	pin := func(bs []Body, skill string, p PinSource) []Body {
		for i := range bs {
			if bs[i].Skill == skill {
				bs[i].Pinned = p
			}
		}
		return bs
	}
	tests := []struct {
		name   string
		cfg    Config
		bodies []Body
		prompt string
		topic  []string
		want   []V
		judged bool
	}{
		{"irrelevant old bodies go, recent stay", cfgWith(nil), bodies("ship", "hi", "eda", "plot", "model"),
			"please plot the data for me", nil,
			[]V{{"ship", false, ArchiveNotRelevant}, {"hi", false, ArchiveNotRelevant}, {"eda", true, KeepRelevant},
				{"plot", true, KeepRecent}, {"model", true, KeepRecent}}, true},
		{"relativeScore keeps a fourth-ranked skill", cfgWith(func(c *Config) { c.TopK = 1; c.MinKeep = 0; c.RelativeScore = 0.5 }),
			bodies("plot", "eda", "clean", "model"), "data data model", nil,
			// eda 12, clean 10, model 11, plot 2: top1 = eda; cut 6
			[]V{{"plot", false, ArchiveNotRelevant}, {"eda", true, KeepRelevant}, {"clean", true, KeepRelevant}, {"model", true, KeepRelevant}}, true},
		{"topK alone when relativeScore is 1", cfgWith(func(c *Config) { c.TopK = 2; c.MinKeep = 0; c.RelativeScore = 1; c.TaskRelativeScore = 1 }),
			bodies("plot", "eda", "clean", "model"), "data data model", nil,
			[]V{{"plot", false, ArchiveNotRelevant}, {"eda", true, KeepRelevant}, {"clean", false, ArchiveNotRelevant}, {"model", true, KeepRelevant}}, true},
		{"no signal evicts nothing", cfgWith(func(c *Config) { c.MinKeep = 0 }), bodies("ship", "plot"),
			"hello there my dear friend", nil,
			[]V{{"ship", true, KeepNoSignal}, {"plot", true, KeepNoSignal}}, true},
		{"no match at all is no signal", cfgWith(func(c *Config) { c.MinKeep = 0 }), bodies("ship", "plot"),
			"Yes, that one, go ahead with it.", nil,
			[]V{{"ship", true, KeepNoSignal}, {"plot", true, KeepNoSignal}}, true},
		{"short prompt skips judging", cfgWith(func(c *Config) { c.MinKeep = 0 }), bodies("ship", "plot"),
			"Plot it.", nil,
			[]V{{"ship", true, KeepShort}, {"plot", true, KeepShort}}, false},
		{"short prompt judged when skipping is off", cfgWith(func(c *Config) { c.MinKeep = 0; c.SkipOnShortPrompts = false }), bodies("ship", "plot"),
			"Plot it.", nil,
			[]V{{"ship", false, ArchiveNotRelevant}, {"plot", true, KeepRelevant}}, true},
		{"same topic skips judging", cfgWith(func(c *Config) { c.MinKeep = 0 }), bodies("ship", "plot"),
			"plot the data, please", []string{"data", "plot"},
			[]V{{"ship", true, KeepSameTopic}, {"plot", true, KeepSameTopic}}, false},
		{"new topic is judged", cfgWith(func(c *Config) { c.MinKeep = 0 }), bodies("ship", "plot"),
			"now deploy the model to production", []string{"data", "plot"},
			[]V{{"ship", true, KeepRelevant}, {"plot", false, ArchiveNotRelevant}}, true},
		{"pinned and entry never go", cfgWith(func(c *Config) { c.MinKeep = 0 }),
			pin(pin(pin(bodies("ship", "hi", "clean"), "ship", PinConfig), "hi", PinEntry), "clean", PinUser),
			"deploy nothing but plots plot", nil,
			[]V{{"ship", true, KeepPinned}, {"hi", true, KeepEntry}, {"clean", true, KeepPinned}}, true},
		{"keyword rule keeps an irrelevant body", cfgWith(func(c *Config) {
			c.MinKeep = 0
			c.Rules = []Rule{{SkillName: "ship", Keywords: []string{"release", "docker image", "k8s"}, Weight: 1}}
		}), bodies("ship", "hi"), "plot the docker image sizes", nil,
			[]V{{"ship", true, KeepRule}, {"hi", false, ArchiveNotRelevant}}, true},
		{"keyword rule below threshold", cfgWith(func(c *Config) {
			c.MinKeep = 0
			c.Threshold = 0.5
			c.Rules = []Rule{{SkillName: "ship", Keywords: []string{"release", "docker image", "k8s"}, Weight: 1}}
		}), bodies("ship"), "plot the docker image sizes", nil,
			[]V{{"ship", false, ArchiveNotRelevant}}, true},
		{"maxKeep caps the oldest unprotected, pin survives", cfgWith(func(c *Config) { c.MaxKeep = 2; c.MinKeep = 1 }),
			pin(bodies("hi", "eda", "clean", "plot"), "hi", PinConfig),
			"please plot the data for me", nil,
			// relevance keeps eda, clean, plot; hi pinned; 4 > 2: eda then clean go; plot is recent.
			[]V{{"hi", true, KeepPinned}, {"eda", false, ArchiveOverMaxKeep}, {"clean", false, ArchiveOverMaxKeep}, {"plot", true, KeepRecent}}, true},
		{"maxKeep cannot evict protected bodies", cfgWith(func(c *Config) { c.MaxKeep = 1; c.MinKeep = 2 }),
			pin(bodies("hi", "eda", "plot"), "hi", PinUser), "Plot it.", nil,
			[]V{{"hi", true, KeepPinned}, {"eda", true, KeepRecent}, {"plot", true, KeepRecent}}, false},
		{"maxKeep applies on a skipped prompt", cfgWith(func(c *Config) { c.MaxKeep = 2; c.MinKeep = 1 }),
			bodies("ship", "eda", "plot"), "ok", nil,
			[]V{{"ship", false, ArchiveOverMaxKeep}, {"eda", true, KeepShort}, {"plot", true, KeepRecent}}, false},
		{"disabled keeps everything", cfgWith(func(c *Config) { c.Enabled = false; c.MaxKeep = 1 }),
			bodies("ship", "hi", "plot"), "please plot the data for me", nil,
			[]V{{"ship", true, KeepDisabled}, {"hi", true, KeepDisabled}, {"plot", true, KeepDisabled}}, false},
		// cacheAware.largeBodyChars applies to mid-run loads only.
		{"a large body at a prompt: rank and recency hold it", cfgWith(func(c *Config) { c.RelativeScore = 0.9 }),
			large(bodies("ship", "clean", "eda", "model"), "clean", "model"), "data data model", nil,
			[]V{{"ship", false, ArchiveNotRelevant}, {"clean", true, KeepRelevant}, {"eda", true, KeepRecent}, {"model", true, KeepRecent}}, true},
		{"minKeep larger than the bodies", cfgWith(func(c *Config) { c.MinKeep = 10 }),
			bodies("ship", "hi"), "please plot the data for me", nil,
			[]V{{"ship", true, KeepRecent}, {"hi", true, KeepRecent}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := JudgePrompt(PromptCase{Config: tt.cfg, Bodies: tt.bodies, Prompt: tt.prompt, Topic: tt.topic, Ranker: ranker})
			if d := cmp.Diff(tt.want, summarize(out.Verdicts)); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
			if out.Judged != tt.judged {
				t.Errorf("judged = %v, want %v", out.Judged, tt.judged)
			}
			for _, v := range out.Verdicts {
				if v.Reason.Text == "" || v.ID == "" {
					t.Errorf("verdict without text or id: %+v", v)
				}
			}
		})
	}
}

func TestReasonTexts(t *testing.T) {
	bs := bodies("eval", "ship", "plot")
	bs[2].Run = 2 // the current task's: the lower bar
	out := JudgePrompt(PromptCase{Config: cfgWith(func(c *Config) { c.MinKeep = 0 }), Bodies: bs,
		Prompt: "model the data, model the data", Ranker: ranker})
	// model 20, eda 12, clean 10, eval 6, plot 2.
	want := []string{
		"not relevant to the prompt: ranked #4 of 5, score 6.00 (best 20.00; kept: top 3 or score ≥ 13.00)",
		"not relevant to the prompt: no score (best 20.00; kept: top 3 or score ≥ 13.00)",
		"not relevant to the prompt: ranked #5 of 5, score 2.00 (best 20.00; kept: top 3 or score ≥ 6.60, the current task's bar, taskRelativeScore 0.33)",
	}
	var got []string
	for _, v := range out.Verdicts {
		got = append(got, v.Reason.Text)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reasons (-want +got):\n%s", d)
	}
	if r := out.Verdicts[0].Reason; r.Rank != 4 || r.Score != 6 || r.Best != 20 || r.Of != 5 {
		t.Errorf("figures of the reason: %+v", r)
	}
}

func TestJudgeLoad(t *testing.T) {
	type V = verdictSummary
	calls := func(bs []Body, skill string, to ...string) []Body {
		for i := range bs {
			if bs[i].Skill == skill {
				bs[i].Calls = to
			}
		}
		return bs
	}
	run := func(bs []Body, skill string, r int) []Body {
		for i := range bs {
			if bs[i].Skill == skill {
				bs[i].Run = r
			}
		}
		return bs
	}
	tests := []struct {
		name    string
		cfg     Config
		bodies  []Body
		newS    string
		newText string
		helper  string
		want    []V
		hint    []string // Reason.Calls per body
	}{
		{"unrelated earlier bodies go, minKeep does not apply", cfgWith(nil), run(bodies("ship", "eda", "hi"), "hi", 1),
			"plot", "plot: plot data charts", "",
			[]V{{"ship", false, ArchiveMidRun}, {"eda", true, KeepRelevant}, {"hi", false, ArchiveMidRun}}, []string{"", "", ""}},
		{"same-run loads stay", cfgWith(nil), run(bodies("ship", "hi"), "hi", 2),
			"plot", "plot: plot data charts", "",
			[]V{{"ship", false, ArchiveMidRun}, {"hi", true, KeepSameRun}}, []string{"", ""}},
		{"helper load evicts nothing", cfgWith(nil), bodies("ship", "hi"),
			"plot", "plot: plot data charts", "metadata.role: helper",
			[]V{{"ship", true, KeepHelperLoad}, {"hi", true, KeepHelperLoad}}, []string{"", ""}},
		{"dispatcher hint when the evicted body calls the new skill", cfgWith(nil), calls(bodies("ship", "hi"), "hi", "plot", "eda"),
			"plot", "plot: plot data charts", "",
			[]V{{"ship", false, ArchiveMidRun}, {"hi", false, ArchiveMidRun}}, []string{"", "plot"}},
		{"no hint when the body calls other skills only", cfgWith(nil), calls(bodies("hi"), "hi", "eda"),
			"plot", "plot: plot data charts", "",
			[]V{{"hi", false, ArchiveMidRun}}, []string{""}},
		{"protectCallers keeps the caller", cfgWith(func(c *Config) { c.ProtectCallers = true }), calls(bodies("ship", "hi"), "hi", "plot"),
			"plot", "plot: plot data charts", "",
			[]V{{"ship", false, ArchiveMidRun}, {"hi", true, KeepCaller}}, []string{"", "plot"}},
		{"protectLoader keeps the body loaded just before", cfgWith(func(c *Config) { c.ProtectLoader = true }), bodies("ship", "hi"),
			"plot", "plot: plot data charts", "",
			[]V{{"ship", false, ArchiveMidRun}, {"hi", true, KeepLoader}}, []string{"", ""}},
		{"pinned stays", cfgWith(nil), []Body{{ID: "a", Skill: "ship", Pinned: PinEntry}}, "plot", "plot: plot data charts", "",
			[]V{{"ship", true, KeepEntry}}, []string{""}},
		{"weak description is no signal", cfgWith(nil), bodies("ship"), "hi", "hi: hello", "",
			[]V{{"ship", true, KeepNoSignal}}, []string{""}},
		{"evictOnSkillLoad off", cfgWith(func(c *Config) { c.EvictOnSkillLoad = false }), bodies("ship"), "plot", "plot: plot data", "",
			[]V{{"ship", true, KeepSameRun}}, []string{""}},
		// plot 21, eda 10, clean 5, model 1: cut 10.5; eda, second, stays on
		// rank unless it is large.
		{"a large body superseded mid-run is not kept on rank", cfgWith(nil), large(bodies("eda", "clean"), "eda"),
			"plot", "plot: plot data charts", "",
			[]V{{"eda", false, ArchiveMidRun}, {"clean", true, KeepRelevant}}, []string{"", ""}},
		{"a large body superseded mid-run is kept on its score", cfgWith(func(c *Config) { c.RelativeScore = 0.4 }), large(bodies("eda"), "eda"),
			"plot", "plot: plot data charts", "",
			[]V{{"eda", true, KeepRelevant}}, []string{""}},
		{"a large body in the same run stays", cfgWith(nil), run(large(bodies("eda"), "eda"), "eda", 2),
			"plot", "plot: plot data charts", "",
			[]V{{"eda", true, KeepSameRun}}, []string{""}},
		{"largeBodyChars 0: rank holds a large body mid-run", cfgWith(func(c *Config) { c.CacheAware.LargeBodyChars = 0 }), large(bodies("eda"), "eda"),
			"plot", "plot: plot data charts", "",
			[]V{{"eda", true, KeepRelevant}}, []string{""}},
		{"relevance-only: rank holds a large body mid-run", cfgWith(func(c *Config) { c.CacheAware.Enabled = false }), large(bodies("eda"), "eda"),
			"plot", "plot: plot data charts", "",
			[]V{{"eda", true, KeepRelevant}}, []string{""}},
		{"a body just under largeBodyChars is kept on rank", cfgWith(func(c *Config) { c.CacheAware.LargeBodyChars = 9001 }), large(bodies("eda"), "eda"),
			"plot", "plot: plot data charts", "",
			[]V{{"eda", true, KeepRelevant}}, []string{""}},
		{"keyword rule against the description", cfgWith(func(c *Config) {
			c.Rules = []Rule{{SkillName: "ship", Keywords: []string{"charts"}, Weight: 1}}
		}), bodies("ship"), "plot", "plot: plot data charts", "",
			[]V{{"ship", true, KeepRule}}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := JudgeLoad(LoadCase{Config: tt.cfg, Bodies: tt.bodies, New: Body{ID: "new", Skill: tt.newS, Run: 2},
				NewText: tt.newText, NewHelper: tt.helper, Run: 2, Ranker: ranker})
			if d := cmp.Diff(tt.want, summarize(vs)); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
			var hints []string
			for _, v := range vs {
				hints = append(hints, v.Reason.Calls)
				if v.Reason.Calls != "" && !v.Keep && !strings.Contains(v.Reason.Text, "declare metadata.role: helper") {
					t.Errorf("hint missing from %q", v.Reason.Text)
				}
				if v.Reason.Calls == "" && strings.Contains(v.Reason.Text, "declare metadata.role") {
					t.Errorf("hint without a call: %q", v.Reason.Text)
				}
			}
			if d := cmp.Diff(tt.hint, hints); d != "" {
				t.Errorf("hints (-want +got):\n%s", d)
			}
			for i, v := range vs {
				judged := v.Reason.Code == KeepRelevant || v.Reason.Code == ArchiveMidRun
				says := strings.Contains(v.Reason.Text, fmt.Sprintf("; a body of %d characters is not kept on rank, largeBodyChars %d)", tt.bodies[i].Size, tt.cfg.CacheAware.LargeBodyChars))
				if large := tt.cfg.LargeBody(tt.bodies[i].Size); judged && large != says {
					t.Errorf("large = %v, but the reason says %q", large, v.Reason.Text)
				}
			}
		})
	}
}

func TestWordsAndOverlap(t *testing.T) {
	if d := cmp.Diff([]string{"don", "t", "use", "scikit", "learn", "v1", "2", "überall"}, Words("Don't use scikit-learn v1.2 -- überall!")); d != "" {
		t.Errorf("Words (-want +got):\n%s", d)
	}
	tests := []struct {
		cur, prev string
		first     bool
		want      float64
	}{
		{"plot the churn data", "plot churn data by month", false, 1},
		{"plot the churn data by region", "plot churn data by month", false, 0.75},
		{"deploy the model", "plot churn data", false, 0},
		{"the it and", "plot churn data", false, 1},
		{"plot data", "", true, 0},
	}
	for _, tt := range tests {
		var prev []string
		if !tt.first {
			prev = TopicWords(tt.prev)
		}
		if got := TopicOverlap(TopicWords(tt.cur), prev); got != tt.want {
			t.Errorf("TopicOverlap(%q, %q) = %v, want %v", tt.cur, tt.prev, got, tt.want)
		}
	}
}

func TestRuleScore(t *testing.T) {
	rs := []Rule{
		{SkillName: "a", Keywords: []string{"random forest", "xgboost", "tree", "boost"}, Weight: 1},
		{SkillName: "a", Keywords: []string{"tree"}, Weight: 0.4},
		{SkillName: "b", Keywords: []string{"x"}, Weight: 1},
		{SkillName: "s", Keywords: []string{"scikit-learn"}, Weight: 1},
	}
	tests := []struct {
		skill, text string
		score       float64
		rule        int
	}{
		{"a", "Fit a Random Forest and an XGBoost", 0.5, 0},
		// A keyword and a text are split alike, as the index splits them.
		{"a", "a random-forest", 0.25, 0},
		{"s", "use scikit-learn", 1, 3},
		{"s", "use scikit learn", 1, 3},
		{"s", "use sklearn", 0, 3},
		{"a", "grow a tree", 0.4, 1},
		{"c", "anything", 0, -1},
	}
	for _, tt := range tests {
		s, r := RuleScore(rs, tt.skill, Words(tt.text))
		if s != tt.score || r != tt.rule {
			t.Errorf("RuleScore(%q, %q) = %v, %d; want %v, %d", tt.skill, tt.text, s, r, tt.score, tt.rule)
		}
	}
}

func TestResourcePlaceholder(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"references/a.md", `[skill-lifecycle: references/a.md, a file of skill "s", was archived`},
		{"", `[skill-lifecycle: a file of skill "s" was archived`},
	} {
		if got := ResourcePlaceholder("s", tc.path); !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, "read it again.]") {
			t.Errorf("path %q: %q, want it to start %q and say how to get the file back", tc.path, got, tc.want)
		}
	}
}

// TestJudgePromptCurrentTask: the bodies the latest run loaded stay at the
// lower bar taskRelativeScore (issue 32: a follow-up shares few words with
// the skill doing the work), beyond the minKeep most recent; older bodies
// keep relativeScore's bar, and a prompt on another topic still drops the
// current task's.
func TestJudgePromptCurrentTask(t *testing.T) {
	type V = verdictSummary
	r := wordRanker(map[string]map[string]float64{
		"deploy": {"ship": 10, "a": 9, "b": 8, "task": 5, "old": 5, "faint": 2},
	})
	bs := []Body{
		{ID: "1", Skill: "old", Run: 1},
		{ID: "2", Skill: "task", Run: 2},
		{ID: "3", Skill: "faint", Run: 2},
		{ID: "4", Skill: "x", Run: 2},
		{ID: "5", Skill: "y", Run: 2},
	}
	out := JudgePrompt(PromptCase{Config: Default(), Bodies: bs, Prompt: "deploy it to staging now", Ranker: r})
	want := []V{{"old", false, ArchiveNotRelevant}, {"task", true, KeepRelevant}, {"faint", false, ArchiveNotRelevant},
		{"x", true, KeepRecent}, {"y", true, KeepRecent}}
	if d := cmp.Diff(want, summarize(out.Verdicts)); d != "" {
		t.Fatalf("verdicts (-want +got):\n%s", d)
	}
	if txt := out.Verdicts[1].Reason.Text; !strings.Contains(txt, "current task's bar, taskRelativeScore 0.33") {
		t.Errorf("the task body's reason does not say the bar: %q", txt)
	}
	// A later load already due for archive does not make a task: run 2's
	// bodies are still the current task's.
	due := append(slices.Clone(bs), Body{ID: "6", Skill: "z", Run: 3, Due: true})
	out = JudgePrompt(PromptCase{Config: Default(), Bodies: due, Prompt: "deploy it to staging now", Ranker: r})
	if v := out.Verdicts[1]; !v.Keep {
		t.Errorf("with a due later load, task: %+v", v)
	}
	// taskRelativeScore 0.65 (= relativeScore): no lower bar.
	out = JudgePrompt(PromptCase{Config: cfgWith(func(c *Config) { c.TaskRelativeScore = 0.65 }), Bodies: bs, Prompt: "deploy it to staging now", Ranker: r})
	if v := out.Verdicts[1]; v.Keep {
		t.Errorf("without a lower bar, task: %+v", v)
	}
}
