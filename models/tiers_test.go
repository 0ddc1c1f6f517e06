package models

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func price(v float64) *float64 { return &v }

var (
	opus   = ModelRef{"anthropic", "claude-opus-4-6"}
	sonnet = ModelRef{"anthropic", "claude-sonnet-4-5"}
	haiku  = ModelRef{"anthropic", "claude-haiku-4-5"}
	local  = ModelRef{"ollama", "qwen3-coder"}   // no price
	plain  = ModelRef{"openrouter", "tiny-chat"} // priced, no reasoning
	ghost  = ModelRef{"anthropic", "claude-nonexistent"}
)

func testRegistry() Registry {
	return NewRegistry([]ModelInfo{
		{Provider: "anthropic", ID: "claude-opus-4-6", InputPrice: price(15), OutputPrice: price(75), Reasoning: true,
			ThinkingLevels: []ThinkingLevel{"off", "minimal", "low", "medium", "high", "xhigh"}},
		{Provider: "anthropic", ID: "claude-sonnet-4-5", InputPrice: price(3), OutputPrice: price(15), Reasoning: true},
		{Provider: "anthropic", ID: "claude-haiku-4-5", InputPrice: price(1), OutputPrice: price(5), Reasoning: true},
		{Provider: "ollama", ID: "qwen3-coder", Reasoning: true},
		{Provider: "openrouter", ID: "tiny-chat", InputPrice: price(0.1), OutputPrice: price(0.2)},
		{Provider: "amazon-bedrock", ID: "claude-sonnet-4-5", InputPrice: price(3), OutputPrice: price(15), Reasoning: true},
	})
}

// testConfig defines the tiers used by the scenarios; edit adjusts it.
func testConfig(edit func(*Config)) Config {
	c := DefaultConfig()
	c.Tiers = map[string]Tier{
		"big":        {Model: opus, ThinkingLevel: ThinkingHigh, Scope: ScopeSession},
		"big-run":    {Model: opus, ThinkingLevel: ThinkingHigh, Scope: ScopeRun},
		"opus-low":   {Model: opus, ThinkingLevel: ThinkingLow, Scope: ScopeSession},
		"opus-any":   {Model: opus, Scope: ScopeSession},
		"medium":     {Model: sonnet, Scope: ScopeSession},
		"medium-run": {Model: sonnet, Scope: ScopeRun},
		"small":      {Model: haiku, ThinkingLevel: ThinkingLow, Scope: ScopeSession},
		"local":      {Model: local, Scope: ScopeSession},
		"plain-high": {Model: plain, ThinkingLevel: ThinkingHigh, Scope: ScopeSession},
		"plain-low":  {Model: plain, ThinkingLevel: ThinkingLow, Scope: ScopeSession},
		"ghost":      {Model: ghost, Scope: ScopeSession},
	}
	if edit != nil {
		edit(&c)
	}
	return c
}

// step is one event fed to the machine, and the actions it must return,
// summarised as "switch M", "restore M" and "report <key words>" (notes are
// left out of the summary and checked where they matter).
type step struct {
	load     []Load
	runStart bool
	runEnd   bool
	selected *Selection // host model_select or session start
	failed   *ModelRef
	reset    bool
	want     []string
}

func (st step) apply(tr Tiers, s State) (State, []Action) {
	switch {
	case st.load != nil:
		return tr.Load(s, st.load)
	case st.runStart:
		return tr.RunStart(s)
	case st.runEnd:
		return tr.RunEnd(s)
	case st.selected != nil:
		return tr.ModelSelected(s, *st.selected)
	case st.failed != nil:
		return tr.SwitchFailed(s, *st.failed, "no API key")
	case st.reset:
		return tr.Reset(s)
	}
	panic("empty step")
}

func summary(acts []Action) []string {
	var out []string
	for _, a := range acts {
		switch a.Kind {
		case ActSwitch, ActRestore:
			out = append(out, fmt.Sprintf("%s %s", a.Kind, a.To))
		case ActReport:
			out = append(out, "report "+a.Message)
		}
	}
	return out
}

func sel(m ModelRef, l ThinkingLevel) *Selection { return &Selection{Model: m, Thinking: l} }

func on(m ModelRef, l ThinkingLevel) step { return step{selected: sel(m, l)} }

func load(lds ...Load) step { return step{load: lds} }

func worker(name, tier string) Load { return Load{Skill: name, ModelTier: tier} }

func helper(name, tier string) Load {
	return Load{Skill: name, ModelTier: tier, Role: skills.RoleHelper}
}

func entry(name, tier string) Load { return Load{Skill: name, ModelTier: tier, Role: skills.RoleEntry} }

func (st step) then(want ...string) step { st.want = want; return st }

var (
	runStart = step{runStart: true}
	runEnd   = step{runEnd: true}
)

func failed(m ModelRef) step { return step{failed: &m} }

type scenario struct {
	name  string
	cfg   Config
	reg   *Registry // nil: testRegistry()
	steps []step
}

func scenarios() []scenario {
	def := func(name string) func(*Config) {
		return func(c *Config) { c.Default = &DefaultRef{TierName: name, Tier: c.Tiers[name]} }
	}
	policy := func(p HelperPolicy) func(*Config) { return func(c *Config) { c.HelperTierPolicy = p } }
	zero := Registry{}
	return []scenario{
		// Precedence and opt-out.
		{name: "skillTiers beats metadata", cfg: testConfig(func(c *Config) { c.SkillTiers = map[string]string{"a": "small"} }),
			steps: []step{on(sonnet, ThinkingMedium), load(worker("a", "big")).then("switch anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "metadata beats default", cfg: testConfig(def("small")),
			steps: []step{on(sonnet, ThinkingMedium), load(worker("a", " BIG ")).then("switch anthropic/claude-opus-4-6 (thinking high)")}},
		{name: "default applies to unlabelled skills", cfg: testConfig(def("small")),
			steps: []step{on(sonnet, ThinkingMedium), load(worker("a", "")).then("switch anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "applyToUnlabeledSkills false: unlabelled keeps, undefined tier falls back to default",
			cfg: testConfig(func(c *Config) { def("small")(c); c.ApplyToUnlabeledSkills = false }),
			steps: []step{on(sonnet, ThinkingMedium),
				load(worker("a", "")).then(),
				load(worker("b", "huge")).then(`report tier "huge" (metadata.modelTier of b) is not defined in models.tiers; using the default "small"`,
					"switch anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "undefined tier without default is reported once and keeps the model", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium),
				load(worker("a", "huge")).then(`report tier "huge" (metadata.modelTier of a) is not defined in models.tiers; keeping the current model`),
				load(worker("b", "huge")).then()}},
		{name: "modelTier none keeps the model despite a default", cfg: testConfig(def("small")),
			steps: []step{on(sonnet, ThinkingMedium), load(worker("a", "none")).then(), load(worker("b", "Off")).then()}},
		{name: "skillTiers none opts out a labelled skill",
			cfg:   testConfig(func(c *Config) { def("small")(c); c.SkillTiers = map[string]string{"a": "none"} }),
			steps: []step{on(sonnet, ThinkingMedium), load(worker("a", "big")).then()}},
		{name: "disabled switches nothing", cfg: testConfig(func(c *Config) { c.Enabled = false }),
			steps: []step{on(sonnet, ""), load(worker("a", "big")).then()}},
		{name: "nothing switches until tiers are defined",
			cfg: func() Config {
				c := DefaultConfig()
				c.Default = &DefaultRef{Tier: Tier{Model: haiku, Scope: ScopeSession}}
				return c
			}(),
			steps: []step{on(sonnet, ""), load(worker("a", "small"), worker("b", "")).then()}},
		{name: "a tier whose level clamps to the current one does not switch", cfg: testConfig(nil),
			steps: []step{on(plain, ThinkingOff), load(worker("a", "plain-high")).then(), load(worker("b", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "default written as a model", cfg: testConfig(func(c *Config) { c.Default = &DefaultRef{Tier: Tier{Model: haiku, Scope: ScopeSession}} }),
			steps: []step{on(sonnet, ""), load(worker("a", "")).then("switch anthropic/claude-haiku-4-5")}},

		// Scope.
		{name: "session scope stays after the run", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium), runStart, load(worker("a", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"), runEnd.then(),
				runStart, load(worker("a", "big")).then(), runEnd.then()}},
		{name: "run scope restores the model from before the tier", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium), runStart, load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				runEnd.then("restore anthropic/claude-sonnet-4-5 (thinking medium)"),
				// The next run asks again and gets it again.
				runStart, load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				runEnd.then("restore anthropic/claude-sonnet-4-5 (thinking medium)")}},
		{name: "two run-scoped tiers restore the model from before the first", cfg: testConfig(nil),
			steps: []step{on(haiku, ThinkingLow), runStart,
				load(worker("a", "medium-run")).then("switch anthropic/claude-sonnet-4-5"),
				load(worker("b", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				runEnd.then("restore anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "a later session-scoped switch supersedes the restore", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium), runStart,
				load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(worker("b", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				runEnd.then()}},
		{name: "a session-scoped tier already in use also cancels the restore", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium), runStart,
				load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(worker("b", "big")).then(),
				runEnd.then()}},
		{name: "a /skill load before the run starts belongs to that run", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				runStart, runEnd.then("restore anthropic/claude-sonnet-4-5")}},

		// Manual changes.
		{name: "a manual switch cancels the pending restore", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium), runStart,
				load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				on(opus, ThinkingHigh).then(), // the echo of our own switch is not manual
				on(haiku, "").then(),          // the user picks haiku
				runEnd.then()}},
		{name: "the echo of our own switch keeps the restore", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium), runStart,
				load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				on(opus, "").then(),
				runEnd.then("restore anthropic/claude-sonnet-4-5 (thinking medium)")}},
		{name: "same skill again at the same tier after a manual change keeps the user's model", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""),
				load(worker("a", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				on(haiku, "").then(),
				load(worker("a", "big")).then(),
				load(worker("b", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)")}},
		{name: "same skill again at the same tier does not switch again; after another skill's switch it does", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""),
				load(worker("a", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(worker("a", "big")).then(),
				load(worker("b", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				load(worker("a", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)")}},
		{name: "reset goes back to the model before the first switch", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium),
				load(worker("a", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(worker("b", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				step{reset: true}.then("restore anthropic/claude-sonnet-4-5 (thinking medium)"),
				load(worker("b", "small")).then(),
				step{reset: true}.then()}},

		// Helpers under allow-downgrade (the default policy).
		{name: "allow-downgrade: a cheaper helper switches for the run", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				runEnd.then("restore anthropic/claude-opus-4-6 (thinking high)")}},
		{name: "allow-downgrade: a dearer helper stays on the caller's model", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				load(helper("h", "big")).then(),
				runEnd.then()}},
		{name: "allow-downgrade compares with the caller, not the previous helper", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h1", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				load(helper("h2", "medium")).then("switch anthropic/claude-sonnet-4-5"),
				// Never above the caller: a big helper brings the caller's model back.
				load(helper("h3", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h1", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				runEnd.then("restore anthropic/claude-opus-4-6 (thinking high)")}},
		{name: "allow-downgrade: an unpriced helper model does not switch", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h", "local")).then(),
				runEnd.then()}},
		{name: "allow-downgrade: an unpriced caller model does not switch", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "local")).then("switch ollama/qwen3-coder"),
				load(helper("h", "small")).then(),
				runEnd.then()}},
		{name: "allow-downgrade: same model at a lower thinking level is cheaper", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h", "opus-low")).then("switch anthropic/claude-opus-4-6 (thinking low)"),
				runEnd.then("restore anthropic/claude-opus-4-6 (thinking high)")}},
		{name: "allow-downgrade: same model without a thinking level cannot be compared", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h", "opus-any")).then(),
				runEnd.then()}},
		{name: "allow-downgrade: levels are clamped before comparing", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "plain-high")).then("switch openrouter/tiny-chat (thinking high)"),
				// tiny-chat offers only "off": low is not lower than high there.
				load(helper("h", "plain-low")).then(),
				runEnd.then()}},
		{name: "allow-downgrade without the host registry: no price, no switch", cfg: testConfig(nil), reg: &zero,
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h", "small")).then(),
				runEnd.then()}},
		{name: "keep: a helper never switches", cfg: testConfig(policy(Keep)),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h", "small")).then(),
				runEnd.then()}},
		{name: "always: a helper applies its tier, upgrades included, for the run", cfg: testConfig(policy(Always)),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				load(helper("h", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				runEnd.then("restore anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "always with unpriced models still switches", cfg: testConfig(policy(Always)),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(helper("h", "local")).then("switch ollama/qwen3-coder"),
				runEnd.then("restore anthropic/claude-opus-4-6 (thinking high)")}},
		{name: "a helper loaded on its own applies its tier like any skill", cfg: testConfig(policy(Keep)),
			steps: []step{on(sonnet, ""), runStart,
				load(helper("h", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				runEnd.then()}},
		{name: "the entry skill is not a working caller", cfg: testConfig(policy(Keep)),
			steps: []step{on(sonnet, ""), runStart,
				load(entry("router", "")).then(),
				load(helper("h", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				runEnd.then()}},
		{name: "callers are forgotten when the run ends", cfg: testConfig(policy(Keep)),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("w", "")).then(),
				load(helper("h", "small")).then(),
				runEnd.then(), runStart,
				load(helper("h", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "a caller on a model the host never named still makes a helper a helper", cfg: testConfig(nil),
			steps: []step{runStart, load(worker("w", "")).then(), load(helper("h", "small")).then(), runEnd.then()}},
		{name: "always with the caller's model unknown applies the tier; nothing to restore", cfg: testConfig(policy(Always)),
			steps: []step{runStart, load(worker("w", "")).then(), load(helper("h", "small")).then("switch anthropic/claude-haiku-4-5 (thinking low)"), runEnd.then()}},
		{name: "helper before its caller in the same message (either order)", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				// The caller has no tier: its model is the one at the start.
				load(helper("h", "small"), worker("w", "")).then("switch anthropic/claude-haiku-4-5 (thinking low)"),
				runEnd.then("restore anthropic/claude-sonnet-4-5")}},
		{name: "helper before a caller that switches: the caller's switch comes last and wins", cfg: testConfig(policy(Keep)),
			steps: []step{on(sonnet, ""), runStart,
				load(helper("h", "small"), worker("w", "big")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				runEnd.then()}},

		// Parallel loads.
		{name: "one message, several switches: one final switch", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), load(worker("a", "big"), worker("b", "small"), worker("c", "none")).then("switch anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "one message that ends on the starting model switches nothing", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), load(worker("a", "big"), worker("b", "medium")).then()}},
		{name: "one message: run-scoped then session-scoped leaves no restore", cfg: testConfig(nil),
			steps: []step{on(haiku, ""), runStart, load(worker("a", "big-run"), worker("b", "medium")).then("switch anthropic/claude-sonnet-4-5"), runEnd.then()}},
		{name: "one message: session then run-scoped restores the session tier", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart, load(worker("a", "small"), worker("b", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				runEnd.then("restore anthropic/claude-haiku-4-5 (thinking low)")}},

		// Failures.
		{name: "an unknown model is reported once and the skill keeps the model", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""),
				load(worker("a", "ghost")).then("report model anthropic/claude-nonexistent (tier \"ghost\") is not in the host's model registry; a loads on anthropic/claude-sonnet-4-5"),
				load(worker("b", "ghost")).then(),
				load(worker("a", "small"), worker("c", "ghost")).then("switch anthropic/claude-haiku-4-5 (thinking low)")}},
		{name: "without the host registry an unknown model is tried", cfg: testConfig(nil), reg: &zero,
			steps: []step{on(sonnet, ""), load(worker("a", "ghost")).then("switch anthropic/claude-nonexistent")}},
		{name: "a failed switch is reported once, reverted, and not retried", cfg: testConfig(nil),
			steps: []step{on(sonnet, ThinkingMedium), runStart,
				load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				failed(opus).then("report could not switch to anthropic/claude-opus-4-6 (no API key); skills keep running on anthropic/claude-sonnet-4-5 (thinking medium)"),
				load(worker("b", "big")).then(),
				runEnd.then(),
				failed(opus).then()}},
		{name: "a failed session switch brings back the restore it cancelled", cfg: testConfig(nil),
			steps: []step{on(haiku, ""), runStart,
				load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				load(worker("b", "medium")).then("switch anthropic/claude-sonnet-4-5"),
				failed(sonnet).then("report could not switch to anthropic/claude-sonnet-4-5 (no API key); skills keep running on anthropic/claude-opus-4-6 (thinking high)"),
				runEnd.then("restore anthropic/claude-haiku-4-5")}},
		{name: "a failed restore is reported and the model stays", cfg: testConfig(nil),
			steps: []step{on(sonnet, ""), runStart,
				load(worker("a", "big-run")).then("switch anthropic/claude-opus-4-6 (thinking high)"),
				on(opus, ThinkingHigh).then(),
				runEnd.then("restore anthropic/claude-sonnet-4-5"),
				failed(sonnet).then("report could not switch to anthropic/claude-sonnet-4-5 (no API key); skills keep running on anthropic/claude-opus-4-6 (thinking high)"),
				load(worker("b", "medium")).then()}},
	}
}

// TestTiers runs every scenario twice: on the values directly, and with
// the state written to JSON and read back between steps, which must not
// change a single action.
func TestTiers(t *testing.T) {
	for _, sc := range scenarios() {
		for _, roundTrip := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/json=%v", sc.name, roundTrip), func(t *testing.T) {
				reg := testRegistry()
				if sc.reg != nil {
					reg = *sc.reg
				}
				tr := Tiers{Config: sc.cfg, Registry: reg}
				var s State
				for i, st := range sc.steps {
					before, err := json.Marshal(s)
					if err != nil {
						t.Fatal(err)
					}
					next, acts := st.apply(tr, s)
					after, _ := json.Marshal(s)
					if string(before) != string(after) {
						t.Fatalf("step %d modified the state it was given", i)
					}
					if d := cmp.Diff(st.want, summary(acts)); d != "" {
						t.Fatalf("step %d: actions (-want +got):\n%s\nall: %s", i, d, dump(acts))
					}
					for _, a := range acts {
						if a.Message == "" || a.Cause.Reason == "" {
							t.Fatalf("step %d: action without a readable cause: %+v", i, a)
						}
					}
					s = next
					if roundTrip {
						b, err := json.Marshal(s)
						if err != nil {
							t.Fatal(err)
						}
						var back State
						if err := json.Unmarshal(b, &back); err != nil {
							t.Fatal(err)
						}
						if d := cmp.Diff(s, back); d != "" {
							t.Fatalf("step %d: state changed through JSON (-before +after):\n%s", i, d)
						}
						s = back
					}
				}
			})
		}
	}
}

func dump(acts []Action) string {
	var b strings.Builder
	for _, a := range acts {
		fmt.Fprintf(&b, "\n  %s: %s", a.Kind, a.Message)
	}
	return b.String()
}

// TestCauses checks the fields a decision records: tier, where it came
// from, scope, and for helpers the policy and the caller's model.
func TestCauses(t *testing.T) {
	cfg := testConfig(func(c *Config) {
		c.Default = &DefaultRef{TierName: "medium", Tier: c.Tiers["medium"]}
		c.SkillTiers = map[string]string{"pinned-big": "big-run"}
	})
	tr := Tiers{Config: cfg, Registry: testRegistry()}
	start, _ := tr.ModelSelected(State{}, Selection{Model: haiku})
	withCaller, _ := tr.Load(start, []Load{worker("w", "big")})
	tests := []struct {
		name  string
		s     State
		ld    Load
		kind  ActionKind
		cause Cause
		says  string
	}{
		{"skillTiers", start, worker("pinned-big", "small"), ActSwitch,
			Cause{Skill: "pinned-big", Tier: "big-run", Source: FromSkillTiers, Scope: ScopeRun}, `tier "big-run" from skillTiers, this run only`},
		{"metadata", start, worker("a", "big"), ActSwitch,
			Cause{Skill: "a", Tier: "big", Source: FromMetadata, Scope: ScopeSession}, `tier "big" from metadata.modelTier`},
		{"default", start, worker("a", ""), ActSwitch,
			Cause{Skill: "a", Tier: "medium", Source: FromDefault, Scope: ScopeSession}, `no tier: the default "medium"`},
		{"opt-out", start, worker("a", "none"), ActNote,
			Cause{Skill: "a", Tier: "none", Source: FromMetadata}, `metadata.modelTier is "none": keeps the current model`},
		{"helper downgrade", withCaller, helper("h", "small"), ActSwitch,
			Cause{Skill: "h", Tier: "small", Source: FromMetadata, Scope: ScopeRun, Helper: true, Policy: AllowDowngrade, Caller: sel(opus, ThinkingHigh)},
			"cheaper than the caller's anthropic/claude-opus-4-6 (thinking high) (allow-downgrade)"},
		{"helper unpriced", withCaller, helper("h", "local"), ActNote,
			Cause{Skill: "h", Tier: "local", Source: FromMetadata, Helper: true, Policy: AllowDowngrade, Caller: sel(opus, ThinkingHigh)},
			"cannot tell whether ollama/qwen3-coder is cheaper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, acts := tr.Load(tc.s, []Load{tc.ld})
			if len(acts) != 1 || acts[0].Kind != tc.kind {
				t.Fatalf("want one %s action, got %s", tc.kind, dump(acts))
			}
			got := acts[0].Cause
			if !strings.Contains(got.Reason, tc.says) {
				t.Errorf("reason %q does not say %q", got.Reason, tc.says)
			}
			got.Reason = ""
			if d := cmp.Diff(tc.cause, got); d != "" {
				t.Errorf("cause (-want +got):\n%s", d)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	reg := testRegistry()
	tests := []struct {
		name     string
		from, to Selection
		want     Comparison
	}{
		{"cheaper model", *sel(opus, ""), *sel(haiku, ThinkingHigh), Cheaper},
		{"dearer model", *sel(haiku, ""), *sel(sonnet, ""), NotCheaper},
		{"same price, other model, is not cheaper", *sel(sonnet, ThinkingHigh), *sel(ModelRef{"amazon-bedrock", "claude-sonnet-4-5"}, ThinkingLow), NotCheaper},
		{"unpriced target", *sel(opus, ""), *sel(local, ""), Unknown},
		{"unpriced origin", *sel(local, ""), *sel(haiku, ""), Unknown},
		{"model not in registry", *sel(opus, ""), *sel(ghost, ""), Unknown},
		{"lower thinking, same model", *sel(opus, ThinkingXHigh), *sel(opus, ThinkingMedium), Cheaper},
		{"higher thinking, same model", *sel(opus, ThinkingLow), *sel(opus, ThinkingHigh), NotCheaper},
		{"equal thinking", *sel(opus, ThinkingLow), *sel(opus, ThinkingLow), NotCheaper},
		{"unset thinking", *sel(opus, ""), *sel(opus, ThinkingLow), Unknown},
		// sonnet offers off..high: xhigh clamps to high, so it is no dearer than high.
		{"clamped equal", *sel(sonnet, ThinkingXHigh), *sel(sonnet, ThinkingHigh), NotCheaper},
		{"no reasoning clamps all to off", *sel(plain, ThinkingHigh), *sel(plain, ThinkingOff), NotCheaper},
	}
	for _, tc := range tests {
		if got := reg.Compare(tc.from, tc.to); got != tc.want {
			t.Errorf("%s: Compare(%v, %v) = %s, want %s", tc.name, tc.from, tc.to, got, tc.want)
		}
	}
}

func TestClampAndPrice(t *testing.T) {
	m := ModelInfo{Reasoning: true, ThinkingLevels: []ThinkingLevel{"high", "low", "bogus"}}
	tests := []struct{ in, want ThinkingLevel }{
		{ThinkingOff, ThinkingLow}, {ThinkingMedium, ThinkingLow}, {ThinkingHigh, ThinkingHigh}, {ThinkingXHigh, ThinkingHigh}, {"", ""}, {"max", ""},
	}
	for _, tc := range tests {
		if got := m.Clamp(tc.in); got != tc.want {
			t.Errorf("Clamp(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in, out *float64
		ok      bool
	}{{price(1), price(2), true}, {nil, price(2), false}, {price(1), nil, false}, {price(-1), price(2), false}} {
		p, ok := ModelInfo{InputPrice: tc.in, OutputPrice: tc.out}.Price()
		if ok != tc.ok || (ok && p != 3) {
			t.Errorf("Price(%v, %v) = %v, %v", tc.in, tc.out, p, ok)
		}
	}
}

func TestExplain(t *testing.T) {
	cfg := testConfig(func(c *Config) { c.Default = &DefaultRef{TierName: "medium", Tier: c.Tiers["medium"]} })
	tr := Tiers{Config: cfg, Registry: testRegistry()}
	cur := *sel(sonnet, ThinkingMedium)
	// A state where the ghost model was already reported and opus failed.
	var s State
	s, _ = tr.ModelSelected(s, cur)
	s, _ = tr.Load(s, []Load{worker("x", "ghost")})
	tests := []struct {
		name     string
		s        State
		ld       Load
		caller   *Selection
		model    Selection
		switches bool
		says     string
		reports  int
	}{
		{"tier switches", State{}, worker("a", "big"), nil, *sel(opus, ThinkingHigh), true, `tier "big" from metadata.modelTier`, 0},
		{"default already in use", State{}, worker("a", ""), nil, cur, false, "already on anthropic/claude-sonnet-4-5", 0},
		{"opt-out", State{}, worker("a", "off"), nil, cur, false, `"off": keeps the current model`, 0},
		{"helper under a big caller", State{}, helper("h", "small"), sel(opus, ThinkingHigh), *sel(haiku, ThinkingLow), true, "cheaper than the caller's", 0},
		{"helper without caller", State{}, helper("h", "big"), nil, *sel(opus, ThinkingHigh), true, `tier "big"`, 0},
		{"disabled", State{}, worker("a", "big"), nil, cur, false, "models.enabled is false", 0},
		{"reports shown even when already reported", s, worker("a", "ghost"), nil, cur, false, "unknown to the host", 1},
	}
	off := tr
	off.Config.Enabled = false
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := tr
			if tc.name == "disabled" {
				x = off
			}
			e := x.Explain(tc.s, tc.ld, cur, tc.caller)
			if e.Model != tc.model || e.Switch != tc.switches || len(e.Reports) != tc.reports {
				t.Errorf("got model %v switch %v reports %q; want %v %v %d", e.Model, e.Switch, e.Reports, tc.model, tc.switches, tc.reports)
			}
			if !strings.Contains(e.Cause.Reason, tc.says) {
				t.Errorf("reason %q does not say %q", e.Cause.Reason, tc.says)
			}
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	tr := Tiers{Config: testConfig(nil), Registry: testRegistry()}
	s, _ := tr.ModelSelected(State{}, *sel(sonnet, ""))
	batch := []Load{worker("w", "big-run"), helper("h", "small"), worker("v", "none")}
	b.ReportAllocs()
	for b.Loop() {
		s2, _ := tr.Load(s, batch)
		tr.RunEnd(s2)
	}
}

func TestInactiveIsSilent(t *testing.T) {
	for _, cfg := range []Config{DefaultConfig(), testConfig(func(c *Config) { c.Enabled = false })} {
		tr := Tiers{Config: cfg, Registry: testRegistry()}
		s, _ := tr.ModelSelected(State{}, *sel(sonnet, ""))
		if _, acts := tr.Load(s, []Load{worker("a", "big"), helper("h", "small"), worker("b", "none")}); len(acts) != 0 {
			t.Errorf("enabled=%v tiers=%d: want no action, got %s", cfg.Enabled, len(cfg.Tiers), dump(acts))
		}
	}
}

// FuzzTiers drives the machine with arbitrary event sequences and checks
// that it never panics, never loses state through JSON, and keeps its
// invariants: a switch or restore always names a model and records what
// it expects, and a run's end leaves no restore or caller behind.
func FuzzTiers(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{9, 0, 17, 33, 2, 5, 1, 4, 8, 3})
	tiers := []string{"big", "big-run", "small", "medium-run", "local", "ghost", "none", "", "huge", "opus-low"}
	models := []ModelRef{opus, sonnet, haiku, local, plain}
	policies := []HelperPolicy{AllowDowngrade, Keep, Always}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		cfg := testConfig(func(c *Config) {
			c.HelperTierPolicy = policies[int(ops[0])%3]
			if ops[0]&4 != 0 {
				c.Default = &DefaultRef{TierName: "medium", Tier: c.Tiers["medium"]}
			}
			c.ApplyToUnlabeledSkills = ops[0]&8 == 0
		})
		tr := Tiers{Config: cfg, Registry: testRegistry()}
		var s State
		for i := 1; i < len(ops); i++ {
			op := ops[i]
			var acts []Action
			switch op % 8 {
			case 0, 1, 2:
				n := int(op>>3)%3 + 1
				var lds []Load
				for j := 0; j < n; j++ {
					k := int(op) + j*7 + i
					role := []skills.Role{skills.RoleNone, skills.RoleHelper, skills.RoleEntry}[k%3]
					lds = append(lds, Load{Skill: fmt.Sprintf("s%d", k%5), ModelTier: tiers[k%len(tiers)], Role: role})
				}
				s, acts = tr.Load(s, lds)
			case 3:
				s, acts = tr.RunStart(s)
			case 4:
				s, acts = tr.RunEnd(s)
				if s.Restore != nil || s.CallerModel != nil || len(s.Callers) > 0 {
					t.Fatalf("run end left run state: %+v", s)
				}
			case 5:
				s, acts = tr.ModelSelected(s, Selection{Model: models[int(op>>3)%len(models)], Thinking: ThinkingLevels[int(op>>5)%len(ThinkingLevels)]})
			case 6:
				m := models[int(op>>3)%len(models)]
				if s.Expect != nil && op&0x80 != 0 {
					m = s.Expect.To.Model
				}
				s, acts = tr.SwitchFailed(s, m, "")
			case 7:
				s, acts = tr.Reset(s)
			}
			hostCalls := 0
			for _, a := range acts {
				if a.Message == "" || a.Cause.Reason == "" {
					t.Fatalf("action without a readable cause: %+v", a)
				}
				if a.Kind == ActSwitch || a.Kind == ActRestore {
					hostCalls++
					if a.To == nil || a.To.Model.IsZero() {
						t.Fatalf("%s without a model", a.Kind)
					}
					if s.Expect == nil || s.Expect.To != *a.To || s.Current == nil || *s.Current != *a.To {
						t.Fatalf("%s to %v not recorded: expect %+v current %v", a.Kind, a.To, s.Expect, s.Current)
					}
				}
			}
			if hostCalls > 1 {
				t.Fatalf("one event asked the host for %d model changes", hostCalls)
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var back State
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(s, back); d != "" {
				t.Fatalf("state changed through JSON:\n%s", d)
			}
		}
	})
}

// TestParallelOrder checks that the decisions of one message come back in
// call order, with the single host call at the place of the load that won.
func TestParallelOrder(t *testing.T) {
	tr := Tiers{Config: testConfig(nil), Registry: testRegistry()}
	s, _ := tr.ModelSelected(State{}, *sel(sonnet, ThinkingMedium))
	type got struct {
		Kind  ActionKind
		Skill string
	}
	tests := []struct {
		name    string
		loads   []Load
		want    []got
		current Selection
	}{
		{"last switch wins", []Load{worker("a", "big"), worker("b", "small"), worker("c", "none")},
			[]got{{ActNote, "a"}, {ActSwitch, "b"}, {ActNote, "c"}}, *sel(haiku, ThinkingLow)},
		{"back to the start", []Load{worker("a", "big"), worker("b", "medium"), worker("c", "")},
			[]got{{ActNote, "a"}, {ActNote, "b"}, {ActNote, "c"}}, *sel(sonnet, ThinkingMedium)},
		{"report in place", []Load{worker("a", "ghost"), worker("b", "big")},
			[]got{{ActReport, "a"}, {ActNote, "a"}, {ActSwitch, "b"}}, *sel(opus, ThinkingHigh)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next, acts := tr.Load(s, tc.loads)
			var g []got
			for _, a := range acts {
				g = append(g, got{a.Kind, a.Cause.Skill})
			}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("actions (-want +got):\n%s%s", d, dump(acts))
			}
			if next.Current == nil || *next.Current != tc.current {
				t.Errorf("current = %v, want %v", next.Current, tc.current)
			}
		})
	}
}
