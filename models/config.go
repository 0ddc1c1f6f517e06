package models

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/internal/conf"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// ThinkingLevel is a reasoning effort as Pi's agent names it. The empty
// level means "not set": the host applies its own default on a switch.
type ThinkingLevel string

// Thinking levels, from least to most effort (Pi's agent set).
const (
	ThinkingUnset   ThinkingLevel = ""
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
)

// ThinkingLevels lists the valid levels in increasing order of effort.
var ThinkingLevels = []ThinkingLevel{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh}

// Rank is the level's position in ThinkingLevels, or -1 when it is unset or
// not a level.
func (l ThinkingLevel) Rank() int {
	for i, v := range ThinkingLevels {
		if v == l {
			return i
		}
	}
	return -1
}

// Scope says how long a tier's model stays.
type Scope string

// Scopes of a tier.
const (
	// ScopeSession keeps the model until another skill (or the user) changes it.
	ScopeSession Scope = "session"
	// ScopeRun restores, when the run ends, the model active just before.
	ScopeRun Scope = "run"
)

// HelperPolicy says what a helper loaded by a working caller does to the model.
type HelperPolicy string

// Helper policies.
const (
	// AllowDowngrade switches only to a model cheaper than the caller's.
	AllowDowngrade HelperPolicy = "allow-downgrade"
	// Keep never switches while a caller works.
	Keep HelperPolicy = "keep"
	// Always applies the helper's tier, upgrades included.
	Always HelperPolicy = "always"
)

// ModelRef names a model of the host's registry: the pair (provider, id).
type ModelRef struct {
	Provider string `json:"provider" conf:",required,trim,nonempty"`
	ID       string `json:"id" conf:"model,required,trim,nonempty"` // written "model" in a tier
}

// String writes the model as Pi's CLI does: provider/id.
func (m ModelRef) String() string { return m.Provider + "/" + m.ID }

// IsZero reports whether the reference names no model.
func (m ModelRef) IsZero() bool { return m.Provider == "" && m.ID == "" }

// Tier is one entry of models.tiers: the model to switch to and how.
type Tier struct {
	Model         ModelRef      `json:"model" conf:",inline"` // written as the keys provider and model
	ThinkingLevel ThinkingLevel `json:"thinkingLevel,omitempty"`
	Scope         Scope         `json:"scope" conf:",trim,lower,oneof=session|run"` // never empty after Parse
}

// Config is the parsed `models` key of skill-lifecycle.json.
type Config struct {
	Enabled bool `json:"enabled"`
	// Tiers maps a tier name (lower case) to its model.
	Tiers map[string]Tier `json:"tiers"`
	// Default is used for skills without a tier (see ApplyToUnlabeledSkills)
	// and for a tier name that is not defined. Nil: keep the current model.
	Default *DefaultRef `json:"default"`
	// SkillTiers maps a skill name to a tier name (lower case).
	SkillTiers             map[string]string `json:"skillTiers"`
	ApplyToUnlabeledSkills bool              `json:"applyToUnlabeledSkills"`
	HelperTierPolicy       HelperPolicy      `json:"helperTierPolicy" conf:",trim,lower,oneof=allow-downgrade|keep|always"`
}

// DefaultRef is models.default: either a tier name or a model written out.
type DefaultRef struct {
	TierName string `json:"tier,omitempty"` // set when default names a tier
	Tier     Tier   `json:"model"`          // the resolved model either way
}

// Name is how causes name the default: its tier name, or "default" when the
// default is a model written out.
func (d DefaultRef) Name() string {
	if d.TierName != "" {
		return d.TierName
	}
	return "default"
}

// DefaultConfig is the configuration with no `models` key: enabled, but with
// no tiers, so nothing ever switches.
func DefaultConfig() Config {
	return Config{
		Enabled:                true,
		Tiers:                  map[string]Tier{},
		SkillTiers:             map[string]string{},
		ApplyToUnlabeledSkills: true,
		HelperTierPolicy:       AllowDowngrade,
	}
}

// optOut reports whether a tier name deliberately keeps the current model.
func optOut(name string) bool { return name == "none" || name == "off" }

// normTier normalises a tier name as written in config or frontmatter.
func normTier(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Parse reads the `models` key of a skill-lifecycle.json (raw is the key's
// value; nil or JSON null means the key is absent). file names the
// configuration file in diagnostics. Unknown keys and doubtful values give
// warnings and the rest is used; any error makes the whole key invalid, and
// Parse then returns DefaultConfig (nothing switches) with the diagnostics.
func Parse(raw json.RawMessage, file string) (Config, []rules.Diagnostic) {
	return ParseAt(raw, file, 0)
}

// ParseAt is Parse for a value that starts on line line of file, as
// written there (whitespace kept): each diagnostic then gives the line of
// its key. A line of 0 or less means unknown (no lines are given).
func ParseAt(raw json.RawMessage, file string, line int) (Config, []rules.Diagnostic) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return DefaultConfig(), nil
	}
	n, err := conf.Parse(raw, line)
	if err != nil {
		return DefaultConfig(), []rules.Diagnostic{{File: file, Line: max(line, 0), Key: "models", Severity: rules.Error,
			Message: "must be an object, and this is not valid JSON: " + err.Error()}}
	}
	d := conf.Decoder{File: file}
	cfg := DefaultConfig()
	d.Decode(n, "models", &cfg)
	if d.Failed() {
		return DefaultConfig(), d.Diags
	}
	return cfg, d.Diags
}

// DefaultConf sets a tier's defaults: scope session.
func (t *Tier) DefaultConf() { t.Scope = ScopeSession }

// UnmarshalConf reads a thinking level; "max" (accepted by the older
// extension) is read as "xhigh", Pi's highest level, which the host clamps
// further.
func (l *ThinkingLevel) UnmarshalConf(d *conf.Decoder, n *conf.Node, key string) {
	if n.Kind != conf.String {
		d.Fail(key, "must be a string, got %s", conf.Describe(n))
		return
	}
	v := ThinkingLevel(strings.ToLower(strings.TrimSpace(n.Text)))
	switch {
	case v == "max":
		d.Warn(key, "\"max\" is not one of Pi's thinking levels; using \"xhigh\" (Pi lowers it to the model's highest level)")
		*l = ThinkingXHigh
	case v.Rank() < 0:
		d.Fail(key, "%q is not a thinking level; use one of off, minimal, low, medium, high, xhigh", n.Text)
	default:
		*l = v
	}
}

// UnmarshalConf reads models.default written as a tier object; a tier
// name or a model written "provider/id" is resolved once the tiers are
// known (Config.CheckConf).
func (r *DefaultRef) UnmarshalConf(d *conf.Decoder, n *conf.Node, key string) {
	switch n.Kind {
	case conf.Object:
		r.Tier.DefaultConf()
		d.Decode(n, key, &r.Tier)
	case conf.String:
		if strings.TrimSpace(n.Text) == "" {
			d.Fail(key, "cannot be empty; write null for no default")
		}
	default:
		d.Fail(key, "must be null, a tier name, \"provider/model\" or a tier object, got %s", conf.Describe(n))
	}
}

// CheckConf checks what refers to tiers once all are known: tier names
// (case-insensitive, some reserved), skillTiers, and models.default
// written as a name.
func (c *Config) CheckConf(d *conf.Decoder, key string) {
	tiers := make(map[string]Tier, len(c.Tiers))
	for _, name := range slices.Sorted(maps.Keys(c.Tiers)) {
		tkey := key + ".tiers." + name
		switch n := normTier(name); {
		case n == "":
			d.Fail(tkey, "a tier name cannot be empty")
		case optOut(n):
			d.Fail(tkey, "%q is reserved: modelTier %q means keep the current model", name, n)
		case n == "default":
			d.Fail(tkey, "\"default\" is reserved for models.default")
		default:
			if _, dup := tiers[n]; dup {
				d.Fail(tkey, "tier names are case-insensitive and %q is defined twice", n)
				continue
			}
			tiers[n] = c.Tiers[name]
		}
	}
	c.Tiers = tiers
	for _, skill := range slices.Sorted(maps.Keys(c.SkillTiers)) {
		n := normTier(c.SkillTiers[skill])
		if n == "" {
			d.Fail(key+".skillTiers."+skill, "the tier name cannot be empty (use \"none\" to keep the current model)")
			delete(c.SkillTiers, skill)
			continue
		}
		c.SkillTiers[skill] = n
	}
	switch dn := d.Node(key + ".default"); {
	case dn == nil || dn.Kind == conf.Object:
	case dn.Kind == conf.String:
		c.Default = defaultByName(d, key+".default", strings.TrimSpace(dn.Text), c.Tiers)
	default:
		c.Default = nil // null, or reported by UnmarshalConf
	}
	for _, s := range slices.Sorted(maps.Keys(c.SkillTiers)) {
		tn := c.SkillTiers[s]
		if _, ok := c.Tiers[tn]; !ok && !optOut(tn) {
			d.Warn(key+".skillTiers."+s, "tier %q is not defined in models.tiers; the skill falls back to models.default, or keeps the current model", tn)
		}
	}
	if len(c.Tiers) == 0 && (c.Default != nil || len(c.SkillTiers) > 0) {
		d.Warn(key+".tiers", "no tiers are defined, so nothing switches (default and skillTiers take effect once tiers exist)")
	}
}

// defaultByName resolves models.default written as a string: a tier name,
// or a model written "provider/id" (optionally ":thinking").
func defaultByName(d *conf.Decoder, key, s string, tiers map[string]Tier) *DefaultRef {
	if s == "" {
		return nil // reported by UnmarshalConf
	}
	if t, ok := tiers[normTier(s)]; ok {
		return &DefaultRef{TierName: normTier(s), Tier: t}
	}
	if optOut(normTier(s)) {
		d.Warn(key, "%q means no default; write null", s)
		return nil
	}
	ref, level, ok := ParseModel(s)
	if !ok {
		d.Fail(key, "%q is neither a tier defined in models.tiers nor a model written \"provider/model\"", s)
		return nil
	}
	return &DefaultRef{Tier: Tier{Model: ref, ThinkingLevel: level, Scope: ScopeSession}}
}

// ParseModel reads "provider/id", optionally followed by ":level" where
// level is a thinking level (a colon followed by anything else belongs to
// the id, as in "openrouter/qwen/qwen3:free"). The provider is the part
// before the first slash; ids may contain slashes.
func ParseModel(s string) (ModelRef, ThinkingLevel, bool) {
	s = strings.TrimSpace(s)
	var level ThinkingLevel
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		if l := ThinkingLevel(strings.ToLower(s[i+1:])); l.Rank() >= 0 {
			level, s = l, s[:i]
		}
	}
	provider, id, ok := strings.Cut(s, "/")
	provider, id = strings.TrimSpace(provider), strings.TrimSpace(id)
	if !ok || provider == "" || id == "" {
		return ModelRef{}, "", false
	}
	return ModelRef{Provider: provider, ID: id}, level, true
}
