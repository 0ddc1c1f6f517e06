package models

import (
	"encoding/json"
	"fmt"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	const file = "/home/u/.pi/agent/skill-lifecycle.json"
	sonnet := ModelRef{Provider: "anthropic", ID: "claude-sonnet-4-5"}
	full := DefaultConfig()
	full.Tiers = map[string]Tier{
		"small": {Model: ModelRef{"openrouter", "qwen/qwen3.7-flash"}, ThinkingLevel: ThinkingLow, Scope: ScopeSession},
		"big":   {Model: ModelRef{"openrouter", "z-ai/glm-5.3"}, ThinkingLevel: ThinkingHigh, Scope: ScopeRun},
	}
	full.Default = &DefaultRef{TierName: "small", Tier: full.Tiers["small"]}
	full.SkillTiers = map[string]string{"legacy": "big"}
	full.ApplyToUnlabeledSkills = false
	full.HelperTierPolicy = Always

	withTiers := func(edit func(*Config)) Config {
		c := DefaultConfig()
		c.Tiers = map[string]Tier{"medium": {Model: sonnet, Scope: ScopeSession}}
		edit(&c)
		return c
	}
	type diag struct {
		Key      string
		Severity rules.Severity
		Contains string
	}
	tests := []struct {
		name  string
		raw   string
		want  Config
		diags []diag
	}{
		{name: "absent", raw: "", want: DefaultConfig()},
		{name: "null", raw: "null", want: DefaultConfig()},
		{name: "empty object", raw: "{}", want: DefaultConfig()},
		{
			name: "full",
			raw: `{"enabled": true,
			  "tiers": {"Small": {"provider": "openrouter", "model": "qwen/qwen3.7-flash", "thinkingLevel": "low"},
			            "big": {"provider": "openrouter", "model": "z-ai/glm-5.3", "thinkingLevel": "HIGH", "scope": "run"}},
			  "default": "small", "skillTiers": {"legacy": "Big"},
			  "applyToUnlabeledSkills": false, "helperTierPolicy": "always"}`,
			want: full,
		},
		{
			name: "default as provider/id with thinking suffix",
			raw:  `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "default": "openrouter/qwen/qwen3:free:high"}`,
			want: withTiers(func(c *Config) {
				c.Default = &DefaultRef{Tier: Tier{Model: ModelRef{"openrouter", "qwen/qwen3:free"}, ThinkingLevel: ThinkingHigh, Scope: ScopeSession}}
			}),
		},
		{
			name: "default as tier object",
			raw:  `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "default": {"provider": "anthropic", "model": "claude-haiku-4-5", "scope": "run"}}`,
			want: withTiers(func(c *Config) {
				c.Default = &DefaultRef{Tier: Tier{Model: ModelRef{"anthropic", "claude-haiku-4-5"}, Scope: ScopeRun}}
			}),
		},
		{
			name: "default null",
			raw:  `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "default": null}`,
			want: withTiers(func(*Config) {}),
		},
		{
			name: "unknown keys are warnings and the rest is used",
			raw:  `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5", "temperature": 1}}, "verbose": true}`,
			want: withTiers(func(*Config) {}),
			diags: []diag{
				{"models.tiers.medium.temperature", rules.Warning, "unknown key"},
				{"models.verbose", rules.Warning, "unknown key"},
			},
		},
		{
			name: "max is read as xhigh",
			raw:  `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5", "thinkingLevel": "max"}}}`,
			want: withTiers(func(c *Config) {
				c.Tiers["medium"] = Tier{Model: sonnet, ThinkingLevel: ThinkingXHigh, Scope: ScopeSession}
			}),
			diags: []diag{{"models.tiers.medium.thinkingLevel", rules.Warning, "xhigh"}},
		},
		{
			name:  "skillTiers naming an undefined tier is a warning",
			raw:   `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "skillTiers": {"a": "huge", "b": "none"}}`,
			want:  withTiers(func(c *Config) { c.SkillTiers = map[string]string{"a": "huge", "b": "none"} }),
			diags: []diag{{"models.skillTiers.a", rules.Warning, `"huge" is not defined`}},
		},
		{
			name: "default without tiers switches nothing",
			raw:  `{"default": "anthropic/claude-sonnet-4-5"}`,
			want: func() Config {
				c := DefaultConfig()
				c.Default = &DefaultRef{Tier: Tier{Model: sonnet, Scope: ScopeSession}}
				return c
			}(),
			diags: []diag{{"models.tiers", rules.Warning, "nothing switches"}},
		},
		{name: "not an object", raw: `"big"`, want: DefaultConfig(), diags: []diag{{"models", rules.Error, "must be an object {enabled, tiers"}}},
		{name: "enabled not a boolean", raw: `{"enabled": "yes"}`, want: DefaultConfig(), diags: []diag{{"models.enabled", rules.Error, "true or false"}}},
		{
			name:  "bad policy invalidates the whole key",
			raw:   `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "helperTierPolicy": "downgrade"}`,
			want:  DefaultConfig(),
			diags: []diag{{"models.helperTierPolicy", rules.Error, `must be "allow-downgrade", "keep" or "always"`}},
		},
		{
			name: "tier problems",
			raw: `{"tiers": {"a": {"model": "m"}, "b": {"provider": "p", "model": "m", "scope": "turn"},
			  "c": {"provider": "p", "model": "m", "thinkingLevel": "extreme"}, "none": {"provider": "p", "model": "m"},
			  "d": [], "e": {"provider": " ", "model": "m"}}}`,
			want: DefaultConfig(),
			diags: []diag{
				{"models.tiers.a", rules.Error, `missing "provider"`},
				{"models.tiers.b.scope", rules.Error, `must be "session" or "run"`},
				{"models.tiers.c.thinkingLevel", rules.Error, "not a thinking level"},
				{"models.tiers.d", rules.Error, "got a list"},
				{"models.tiers.e.provider", rules.Error, "cannot be empty"},
				{"models.tiers.none", rules.Error, "reserved"},
			},
		},
		{
			name:  "tier names differing in case",
			raw:   `{"tiers": {"Big": {"provider": "p", "model": "m"}, "big": {"provider": "p", "model": "n"}}}`,
			want:  DefaultConfig(),
			diags: []diag{{"models.tiers.big", rules.Error, "defined twice"}},
		},
		{
			name:  "default naming no tier nor model",
			raw:   `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "default": "huge"}`,
			want:  DefaultConfig(),
			diags: []diag{{"models.default", rules.Error, `"huge" is neither`}},
		},
		{
			name:  "default of the wrong type",
			raw:   `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "default": 3}`,
			want:  DefaultConfig(),
			diags: []diag{{"models.default", rules.Error, "got the number 3"}},
		},
		{
			name:  "skillTiers value not a string",
			raw:   `{"tiers": {"medium": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}, "skillTiers": {"a": 1}}`,
			want:  DefaultConfig(),
			diags: []diag{{"models.skillTiers.a", rules.Error, "must be a string"}},
		},
		{name: "broken JSON", raw: `{"tiers": `, want: DefaultConfig(), diags: []diag{{"models", rules.Error, "must be an object"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := Parse(json.RawMessage(tc.raw), file)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("config (-want +got):\n%s", d)
			}
			var gotD []diag
			for _, d := range diags {
				if d.File != file {
					t.Errorf("diagnostic %v does not name the file", d)
				}
				gotD = append(gotD, diag{d.Key, d.Severity, ""})
			}
			var wantD []diag
			for _, d := range tc.diags {
				wantD = append(wantD, diag{d.Key, d.Severity, ""})
			}
			if d := cmp.Diff(wantD, gotD); d != "" {
				t.Fatalf("diagnostics (-want +got):\n%s\nall: %v", d, diags)
			}
			for i, d := range tc.diags {
				if !strings.Contains(diags[i].Message, d.Contains) {
					t.Errorf("diagnostic %q does not say %q", diags[i].Message, d.Contains)
				}
			}
		})
	}
}

func TestParseModel(t *testing.T) {
	tests := []struct {
		in    string
		ref   ModelRef
		level ThinkingLevel
		ok    bool
	}{
		{"anthropic/claude-sonnet-4-5", ModelRef{"anthropic", "claude-sonnet-4-5"}, "", true},
		{"openrouter/z-ai/glm-5.3:high", ModelRef{"openrouter", "z-ai/glm-5.3"}, ThinkingHigh, true},
		{"openrouter/qwen/qwen3:free", ModelRef{"openrouter", "qwen/qwen3:free"}, "", true},
		{" p/m:OFF ", ModelRef{"p", "m"}, ThinkingOff, true},
		{"sonnet", ModelRef{}, "", false},
		{"/m", ModelRef{}, "", false},
		{"p/", ModelRef{}, "", false},
		{"", ModelRef{}, "", false},
	}
	for _, tc := range tests {
		ref, level, ok := ParseModel(tc.in)
		if ref != tc.ref || level != tc.level || ok != tc.ok {
			t.Errorf("ParseModel(%q) = %v, %q, %v; want %v, %q, %v", tc.in, ref, level, ok, tc.ref, tc.level, tc.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"tiers": {"big": {"provider": "p", "model": "m", "thinkingLevel": "high", "scope": "run"}}, "default": "big"}`,
		`{"default": "p/m:low", "skillTiers": {"a": "none"}}`,
		`[1]`, `null`, `{"tiers": {"x": null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, diags := Parse(b, "f.json")
		for _, d := range diags {
			if d.Severity == rules.Error {
				if d := cmp.Diff(DefaultConfig(), cfg); d != "" {
					t.Fatalf("an error left a partial config: %s", d)
				}
			}
			if d.Key == "" || d.Message == "" {
				t.Fatalf("diagnostic without key or message: %+v", d)
			}
		}
		for name, tr := range cfg.Tiers {
			if tr.Model.Provider == "" || tr.Model.ID == "" || (tr.Scope != ScopeRun && tr.Scope != ScopeSession) {
				t.Fatalf("tier %q accepted incomplete: %+v", name, tr)
			}
		}
	})
}

// TestParseAtLines: with the line its value starts on, each diagnostic
// names the line of its key, nested keys and a tier written as the
// default included; a missing key is reported at its enclosing key.
func TestParseAtLines(t *testing.T) {
	raw := "{\n  \"tiers\": {\n    \"big\": {\"provider\": \"p\",\n      \"model\": \"m\", \"scope\": \"turn\"}},\n  \"default\": {\n    \"provider\": \"p\"},\n  \"colour\": 1\n}"
	_, diags := ParseAt(json.RawMessage(raw), "/u/skill-lifecycle.json", 10)
	want := map[string]int{"models.tiers.big.scope": 13, "models.default": 14, "models.colour": 16}
	for _, d := range diags {
		if line, ok := want[d.Key]; ok {
			if d.Line != line {
				t.Errorf("%s: line %d, want %d (%s)", d.Key, d.Line, line, d)
			}
			if !strings.HasPrefix(d.String(), fmt.Sprintf("/u/skill-lifecycle.json:%d: ", line)) {
				t.Errorf("String() = %q", d.String())
			}
			delete(want, d.Key)
		}
	}
	if len(want) != 0 {
		t.Errorf("no diagnostics for %v: %v", want, diags)
	}
	if _, diags := Parse(json.RawMessage(raw), "f"); len(diags) == 0 || diags[0].Line != 0 {
		t.Errorf("Parse without a line gave lines: %v", diags)
	}
}
