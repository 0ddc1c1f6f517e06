package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultsMatchReference(t *testing.T) {
	// The defaults of ../shared/reference/lifecycle-options.md, written out.
	want := map[string]any{
		"enabled": true, "topK": 3.0, "minSignal": 2.0,
		"inferEntrySkill": true, "entrySkill": "", "pinEntrySkill": true,
		"helperSkills": []any{}, "protectCallers": false, "protectLoader": false,
		"rules": []any{}, "threshold": 0.15, "pinned": []any{}, "minKeep": 2.0,
		"maxKeep": 0.0, "evictOnSkillLoad": true, "blockDirectSkillReads": true,
		"verbose": true, "skipOnShortPrompts": true, "minScorablePromptLength": 15.0,
		"topicChangeThreshold": 0.7,
		// Unlike the reference (true): a project file applies on a host
		// without trust only when the user opts in (docs/config.md).
		"trustProjectConfig": false,
		// Unlike the reference (0.5): with bodies indexed a pipeline's
		// stages score alike, and half the best kept 4.4 skills a prompt
		// on the ML pack (docs/relevance.md).
		"relativeScore": 0.65,
		// Not in the reference: the current task's lower bar (issue 32).
		"taskRelativeScore": 0.33,
		// Not in the reference: cache-aware archiving (docs/cache-aware.md).
		"cacheAware": map[string]any{"enabled": true, "readPrice": 0.1, "writePrice": 1.25,
			"cacheTTLSeconds": 300.0, "horizonTurns": 3.0, "horizonRequests": 0.0, "maxDueShare": 0.15,
			"minRemainingRequests": 20.0, "maxRemainingRequests": 20.0, "boundMinChars": 15000.0,
			"comebackBase": 0.25, "comebackLikely": 0.6, "coldConfidence": 0.5, "horizonWarm": false, "fromModel": true, "learnFromUsage": true, "releaseRoutedEntry": true,
			"largeBodyChars": 8000.0},
		// Not in the reference: a skill's files go with its body (docs/config.md).
		"archiveResources": true,
		// Not in the reference: dedupe and compaction (docs/protocol.md).
		"dedupe":     "already-loaded",
		"compaction": map[string]any{"reattach": true, "budgetTokens": 25000.0, "perSkillTokens": 5000.0},
		// Not in the reference: how the host applies archives (docs/pi-host.md).
		"archiveVia": "context_edit",
		// Not in the reference: the listing budget and the hint (issue 30).
		"listingBudget": 0.0,
		"hint":          map[string]any{"enabled": true, "minScore": 30.0, "margin": 2.5},
	}
	b, err := json.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("defaults (-want +got):\n%s", d)
	}
	// Every key Parse knows is a key of Config's JSON, and vice versa
	// (models is omitted when nil).
	keys := map[string]bool{"models": true}
	for k := range got {
		keys[k] = true
	}
	for _, k := range Keys() {
		if !keys[k] {
			t.Errorf("option %q is not a Config field", k)
		}
		delete(keys, k)
	}
	if len(keys) != 0 {
		t.Errorf("Config fields without an option: %v", keys)
	}
}

func TestParseValid(t *testing.T) {
	src := `{
  "$schema": "https://example.invalid/schema.json",
  "topK": 5,
  "relativeScore": 0.25,
  "minSignal": 1.5,
  "entrySkill": " triage-ml-task ",
  "helperSkills": ["plot-ml-figure"],
  "pinned": ["setup-workspace", "b"],
  "rules": [{"skillName": "plot-ml-figure", "keywords": ["plot", "chart"]},
            {"skillName": "x", "keywords": ["k"], "weight": 2.5}],
  "maxKeep": 1e1,
  "enabled": false,
  "models": {"tiers": {"small": {"provider": "p", "model": "m"}}},
  "trustProjectConfig": false
}`
	f, ds := Parse([]byte(src), "user.json")
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	want := Fragment{
		Set: []string{"topK", "relativeScore", "minSignal", "entrySkill", "helperSkills", "pinned", "rules", "maxKeep", "enabled", "models", "trustProjectConfig"},
		Config: func() Config {
			c := Default()
			c.TopK, c.RelativeScore, c.MinSignal, c.EntrySkill = 5, 0.25, 1.5, "triage-ml-task"
			c.HelperSkills, c.Pinned = []string{"plot-ml-figure"}, []string{"setup-workspace", "b"}
			c.Rules = []Rule{{SkillName: "plot-ml-figure", Keywords: []string{"plot", "chart"}, Weight: 1},
				{SkillName: "x", Keywords: []string{"k"}, Weight: 2.5}}
			c.MaxKeep, c.Enabled = 10, false
			c.Models = json.RawMessage(`{"tiers": {"small": {"provider": "p", "model": "m"}}}`)
			c.ModelsFile = "user.json" // where the key was written, for the models package's diagnostics
			c.ModelsLine = 13
			c.TrustProjectConfig = false
			return c
		}(),
	}
	if d := cmp.Diff(want, f); d != "" {
		t.Errorf("fragment (-want +got):\n%s", d)
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		ignored bool       // the file is ignored as a whole
		want    Diagnostic // the first diagnostic (File is filled in)
		msg     string     // substring of its message
	}{
		{"unknown key is a warning", "{\n \"topk\": 4,\n \"minKeep\": 3}", false,
			Diagnostic{Line: 2, Key: "topk", Severity: Warning}, `did you mean "topK"`},
		{"unknown key far from any", `{"colour": "red"}`, false,
			Diagnostic{Line: 1, Key: "colour", Severity: Warning}, "unknown key, ignored"},
		{"negative topK", "{\n\n  \"topK\": -1}", true,
			Diagnostic{Line: 3, Key: "topK", Severity: Error}, "-1 is negative"},
		{"string for number", `{"minSignal": "2"}`, true,
			Diagnostic{Line: 1, Key: "minSignal", Severity: Error}, `got the string "2"`},
		{"NaN as a string", `{"relativeScore": "NaN"}`, true,
			Diagnostic{Line: 1, Key: "relativeScore", Severity: Error}, `must be a number from 0 to 1, got the string "NaN"`},
		{"Infinity as a string", `{"threshold": "Infinity"}`, true,
			Diagnostic{Line: 1, Key: "threshold", Severity: Error}, "must be a number"},
		{"number beyond float64", `{"minSignal": 1e400}`, true,
			Diagnostic{Line: 1, Key: "minSignal", Severity: Error}, "out of range"},
		{"huge count", `{"maxKeep": 10000000000000000000000}`, true,
			Diagnostic{Line: 1, Key: "maxKeep", Severity: Error}, "too large"},
		{"fraction for count", `{"minKeep": 2.5}`, true,
			Diagnostic{Line: 1, Key: "minKeep", Severity: Error}, "whole number"},
		{"relativeScore above 1", `{"relativeScore": 1.5}`, true,
			Diagnostic{Line: 1, Key: "relativeScore", Severity: Error}, "too large"},
		{"bool as string", `{"enabled": "false"}`, true,
			Diagnostic{Line: 1, Key: "enabled", Severity: Error}, "must be true or false"},
		{"null bool", `{"verbose": null}`, true,
			Diagnostic{Line: 1, Key: "verbose", Severity: Error}, "got null"},
		{"pinned not a list", `{"pinned": "a"}`, true,
			Diagnostic{Line: 1, Key: "pinned", Severity: Error}, "list of skill names"},
		{"pinned with a number", `{"pinned": ["a", 3]}`, true,
			Diagnostic{Line: 1, Key: "pinned[1]", Severity: Error}, "must be a string, got the number 3"},
		{"empty helper name", `{"helperSkills": [" "]}`, true,
			Diagnostic{Line: 1, Key: "helperSkills[0]", Severity: Error}, "empty skill name"},
		{"rule without keywords", "{\"rules\": [\n{\"skillName\": \"a\", \"keywords\": []}]}", true,
			Diagnostic{Line: 2, Key: "rules[0].keywords", Severity: Error}, "at least one keyword"},
		{"rule without skillName", `{"rules": [{"keywords": ["a"]}]}`, true,
			Diagnostic{Line: 1, Key: "rules[0]", Severity: Error}, `missing "skillName"`},
		{"rule weight zero", `{"rules": [{"skillName": "a", "keywords": ["a"], "weight": 0}]}`, true,
			Diagnostic{Line: 1, Key: "rules[0].weight", Severity: Error}, "above 0"},
		{"rule not an object", `{"rules": ["a"]}`, true,
			Diagnostic{Line: 1, Key: "rules[0]", Severity: Error}, "must be an object"},
		{"unknown key in rule", `{"rules": [{"skillName": "a", "keywords": ["a"], "weigth": 2}]}`, false,
			Diagnostic{Line: 1, Key: "rules[0].weigth", Severity: Warning}, "unknown key in a rule"},
		{"models not an object", `{"models": []}`, true,
			Diagnostic{Line: 1, Key: "models", Severity: Error}, "must be an object"},
		{"syntax error", "{\n  \"topK\": 3,\n  \"minKeep\" 2\n}", true,
			Diagnostic{Line: 3, Severity: Error}, "not valid JSON"},
		{"comment", "{\n  // keep more\n  \"topK\": 5\n}", true,
			Diagnostic{Line: 2, Severity: Error}, "JSON has no comments"},
		{"truncated", "{\n  \"topK\": 3,", true,
			Diagnostic{Line: 2, Severity: Error}, "ends before the object is closed"},
		{"not an object", `[1, 2]`, true,
			Diagnostic{Line: 1, Severity: Error}, "must hold one JSON object"},
		{"trailing text", `{"topK": 3} x`, true,
			Diagnostic{Line: 1, Severity: Error}, "not valid JSON"},
		{"two objects", `{"topK": 3} {"topK": 4}`, true,
			Diagnostic{Line: 1, Severity: Error}, "not valid JSON"},
		{"empty file", " \n", false,
			Diagnostic{Severity: Warning}, "empty"},
		{"duplicate key", "{\"topK\": 3,\n\"topK\": 4}", false,
			Diagnostic{Line: 2, Key: "topK", Severity: Warning}, "more than once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ds := Parse([]byte(tt.src), "/p/.pi/skill-lifecycle.json")
			if len(ds) == 0 {
				t.Fatalf("no diagnostic")
			}
			got := ds[0]
			msg := got.Message
			got.Message = ""
			want := tt.want
			want.File = "/p/.pi/skill-lifecycle.json"
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("diagnostic (-want +got):\n%s\n(message %q)", d, msg)
			}
			if !strings.Contains(msg, tt.msg) {
				t.Errorf("message %q does not contain %q", msg, tt.msg)
			}
			if tt.ignored {
				if d := cmp.Diff(Fragment{}, f); d != "" {
					t.Errorf("an invalid file must be ignored whole; got fragment:\n%s", d)
				}
				last := ds[len(ds)-1]
				if last.Severity != Error {
					t.Errorf("last diagnostic %v is not an error", last)
				}
			}
		})
	}
}

func TestParseWarningKeepsRest(t *testing.T) {
	f, ds := Parse([]byte(`{"minKeep": 4, "colour": "red", "topK": 4, "topK": 6}`), "u.json")
	if len(ds) != 2 {
		t.Fatalf("want 2 warnings, got %v", ds)
	}
	want := Fragment{Set: []string{"minKeep", "topK"}, Config: Default()}
	want.Config.MinKeep, want.Config.TopK = 4, 6
	if d := cmp.Diff(want, f); d != "" {
		t.Errorf("fragment (-want +got):\n%s", d)
	}
	if s := ds[0].String(); !strings.HasPrefix(s, "u.json:1: warning: topK: ") {
		t.Errorf("String() = %q", s)
	}
}

func TestParseNeverPanics(t *testing.T) {
	inputs := []string{"", "{", "}", "null", `"x"`, "{\"rules\": [{}]}", "{\"rules\": [{\"skillName\": 1, \"keywords\": 2}]}",
		"\xef\xbb\xbf{\"topK\": 1}", "{\"topK\": 1e-400}", "{\"topK\": -0}", "{\"\": 1}", "{\"topK\": 0x10}", "\x00\xff"}
	for _, in := range inputs {
		Parse([]byte(in), "f")
	}
	f, ds := Parse([]byte("\xef\xbb\xbf{\"topK\": 1}"), "f")
	if len(ds) != 0 || !f.Sets("topK") || f.Config.TopK != 1 {
		t.Errorf("a byte-order mark must be accepted: %v %v", f, ds)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"topK": 3, "rules": [{"skillName": "a", "keywords": ["b"]}]}`))
	f.Add([]byte(`{"models": {"x": 1}, "pinned": ["a"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		frag, ds := Parse(data, "f")
		for _, d := range ds {
			if d.Severity == Error && !cmp.Equal(frag, Fragment{}) {
				t.Fatalf("error without ignoring the file: %v", ds)
			}
		}
		_ = Merge(frag, frag, Trusted)
	})
}

func TestMerge(t *testing.T) {
	parse := func(src string) Fragment {
		t.Helper()
		f, ds := Parse([]byte(src), "x")
		if len(ds) != 0 {
			t.Fatalf("diagnostics: %v", ds)
		}
		return f
	}
	user := parse(`{"topK": 5, "minKeep": 1, "pinned": ["a"], "rules": [{"skillName": "u", "keywords": ["u1", "u2"]}], "models": {"default": "small"}}`)
	userNoTrust := parse(`{"topK": 5, "trustProjectConfig": false}`)
	userTrust := parse(`{"trustProjectConfig": true}`)
	project := parse(`{"minKeep": 3, "pinned": [], "rules": [{"skillName": "p", "keywords": ["p1"], "weight": 2}], "trustProjectConfig": true}`)

	withDefaults := func(mod func(*Config)) Config {
		c := Default()
		mod(&c)
		return c
	}
	tests := []struct {
		name          string
		user, project Fragment
		trust         Trust
		want          Config
	}{
		{"nothing set", Fragment{}, Fragment{}, TrustUnknown, Default()},
		{"user only", user, Fragment{}, Trusted, withDefaults(func(c *Config) {
			c.TopK, c.MinKeep, c.Pinned = 5, 1, []string{"a"}
			c.Rules = []Rule{{SkillName: "u", Keywords: []string{"u1", "u2"}, Weight: 1}}
			c.Models, c.ModelsFile, c.ModelsLine = json.RawMessage(`{"default": "small"}`), "x", 1
		})},
		{"trusted project overrides key by key, rules replaced", user, project, Trusted, withDefaults(func(c *Config) {
			c.TopK, c.MinKeep, c.Pinned = 5, 3, []string{}
			c.Rules = []Rule{{SkillName: "p", Keywords: []string{"p1"}, Weight: 2}}
			c.Models, c.ModelsFile, c.ModelsLine = json.RawMessage(`{"default": "small"}`), "x", 1
		})},
		{"untrusted project ignored", user, project, Untrusted, withDefaults(func(c *Config) {
			c.TopK, c.MinKeep, c.Pinned = 5, 1, []string{"a"}
			c.Rules = []Rule{{SkillName: "u", Keywords: []string{"u1", "u2"}, Weight: 1}}
			c.Models, c.ModelsFile, c.ModelsLine = json.RawMessage(`{"default": "small"}`), "x", 1
		})},
		{"no host trust: by default the project is ignored", Fragment{}, project, TrustUnknown, Default()},
		{"no host trust: the user opts in", userTrust, project, TrustUnknown, withDefaults(func(c *Config) {
			c.MinKeep, c.Pinned, c.TrustProjectConfig = 3, []string{}, true
			c.Rules = []Rule{{SkillName: "p", Keywords: []string{"p1"}, Weight: 2}}
		})},
		{"no host trust: user says no, project cannot vouch for itself", userNoTrust, project, TrustUnknown, withDefaults(func(c *Config) {
			c.TopK, c.TrustProjectConfig = 5, false
		})},
		{"host trust wins over the user's setting", userNoTrust, project, Trusted, withDefaults(func(c *Config) {
			c.TopK, c.MinKeep, c.Pinned, c.TrustProjectConfig = 5, 3, []string{}, false
			c.Rules = []Rule{{SkillName: "p", Keywords: []string{"p1"}, Weight: 2}}
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Merge(tt.user, tt.project, tt.trust)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("merged (-want +got):\n%s", d)
			}
		})
	}
	// Merging must not alias the fragments' slices.
	got := Merge(user, Fragment{}, Trusted)
	got.Pinned[0] = "changed"
	got.Rules[0].Keywords[0] = "changed"
	if user.Config.Pinned[0] != "a" || user.Config.Rules[0].Keywords[0] != "u1" {
		t.Errorf("Merge aliases the user fragment")
	}
}

func TestCheckNames(t *testing.T) {
	c := Default()
	c.EntrySkill = "router"
	c.Pinned = []string{"a", "gone"}
	c.HelperSkills = []string{"nope"}
	c.Rules = []Rule{{SkillName: "a", Keywords: []string{"k"}, Weight: 1}, {SkillName: "missing", Keywords: []string{"k"}, Weight: 1}}
	c.MaxKeep, c.MinKeep = 1, 2
	installed := func(n string) bool { return n == "a" || n == "router" }
	var keys []string
	for _, d := range CheckNames(c, "u.json", installed) {
		keys = append(keys, d.Key)
		if d.File != "u.json" || d.Severity != Warning || d.Message == "" {
			t.Errorf("diagnostic %+v", d)
		}
	}
	if d := cmp.Diff([]string{"pinned[1]", "helperSkills[0]", "rules[1].skillName", "maxKeep"}, keys); d != "" {
		t.Errorf("keys (-want +got):\n%s", d)
	}
	if ds := CheckNames(Default(), "u.json", installed); len(ds) != 0 {
		t.Errorf("defaults draw warnings: %v", ds)
	}
}
