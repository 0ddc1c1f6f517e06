package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"sort"
	"strings"
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
	Provider string `json:"provider"`
	ID       string `json:"id"`
}

// String writes the model as Pi's CLI does: provider/id.
func (m ModelRef) String() string { return m.Provider + "/" + m.ID }

// IsZero reports whether the reference names no model.
func (m ModelRef) IsZero() bool { return m.Provider == "" && m.ID == "" }

// Tier is one entry of models.tiers: the model to switch to and how.
type Tier struct {
	Model         ModelRef      `json:"model"`
	ThinkingLevel ThinkingLevel `json:"thinkingLevel,omitempty"`
	Scope         Scope         `json:"scope"` // never empty after Parse
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
	HelperTierPolicy       HelperPolicy      `json:"helperTierPolicy"`
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

type parser struct {
	file  string
	diags []rules.Diagnostic
	// With line > 0 (the line of the key's value in the file), top is
	// that value as written and keyAt/valAt give, by key ("models.tiers.
	// big"), the offsets in top of the key's name and of its value, so
	// that each diagnostic names its key's line.
	top          []byte
	line         int
	keyAt, valAt map[string]int
}

func (p *parser) warn(key, format string, a ...any) {
	p.diags = append(p.diags, rules.Diagnostic{File: p.file, Line: p.lineOf(key), Key: key, Severity: rules.Warning, Message: fmt.Sprintf(format, a...)})
}

func (p *parser) fail(key, format string, a ...any) {
	p.diags = append(p.diags, rules.Diagnostic{File: p.file, Line: p.lineOf(key), Key: key, Severity: rules.Error, Message: fmt.Sprintf(format, a...)})
}

// lineOf is the line of key in the file: the line of its name, or of the
// closest enclosing key known; 0 when lines are not known.
func (p *parser) lineOf(key string) int {
	if p.line <= 0 {
		return 0
	}
	for k := key; ; {
		if off, ok := p.keyAt[k]; ok {
			return p.line + bytes.Count(p.top[:off], []byte("\n"))
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			return p.line
		}
		k = k[:i]
	}
}

// locate records where the keys of the object raw (the value of key)
// lie in the file.
func (p *parser) locate(raw json.RawMessage, key string) {
	if p.line <= 0 {
		return
	}
	base, ok := p.valAt[key]
	if !ok {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return
		}
		name, _ := t.(string)
		at := base + int(dec.InputOffset()) - 1 // the name's closing quote
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return
		}
		k := key + "." + name
		p.keyAt[k] = at
		p.valAt[k] = base + int(dec.InputOffset()) - len(v)
	}
}

func (p *parser) failed() bool {
	for _, d := range p.diags {
		if d.Severity == rules.Error {
			return true
		}
	}
	return false
}

// object decodes raw as a JSON object, reporting a type error at key.
func (p *parser) object(raw json.RawMessage, key string) (map[string]json.RawMessage, []string, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		p.fail(key, "must be an object, got %s", kind(raw))
		return nil, nil, false
	}
	p.locate(raw, key)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return m, keys, true
}

func (p *parser) str(raw json.RawMessage, key string) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		p.fail(key, "must be a string, got %s", kind(raw))
		return "", false
	}
	return s, true
}

func (p *parser) boolean(raw json.RawMessage, key string) (bool, bool) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		p.fail(key, "must be true or false, got %s", kind(raw))
		return false, false
	}
	return b, true
}

// kind names the JSON type of raw for messages.
func kind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

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
	cfg := DefaultConfig()
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return cfg, nil
	}
	p := &parser{file: file}
	if line > 0 {
		p.top, p.line = raw, line
		p.keyAt, p.valAt = map[string]int{}, map[string]int{"models": 0}
	}
	top, keys, ok := p.object(raw, "models")
	if !ok {
		return DefaultConfig(), p.diags
	}
	var rawDefault json.RawMessage
	haveDefault := false
	for _, k := range keys {
		v := top[k]
		key := "models." + k
		switch k {
		case "enabled":
			if b, ok := p.boolean(v, key); ok {
				cfg.Enabled = b
			}
		case "applyToUnlabeledSkills":
			if b, ok := p.boolean(v, key); ok {
				cfg.ApplyToUnlabeledSkills = b
			}
		case "helperTierPolicy":
			if s, ok := p.str(v, key); ok {
				switch pol := HelperPolicy(strings.ToLower(strings.TrimSpace(s))); pol {
				case AllowDowngrade, Keep, Always:
					cfg.HelperTierPolicy = pol
				default:
					p.fail(key, "%q is not a helper policy; use \"allow-downgrade\", \"keep\" or \"always\"", s)
				}
			}
		case "tiers":
			p.tiers(v, key, &cfg)
		case "skillTiers":
			p.skillTiers(v, key, &cfg)
		case "default":
			rawDefault, haveDefault = v, true
		default:
			p.warn(key, "unknown key, ignored (known: enabled, tiers, default, skillTiers, applyToUnlabeledSkills, helperTierPolicy)")
		}
	}
	// default and skillTiers refer to tiers, so they are checked once all
	// tiers are known.
	if haveDefault {
		cfg.Default = p.defaultRef(rawDefault, cfg.Tiers)
	}
	names := make([]string, 0, len(cfg.SkillTiers))
	for s := range cfg.SkillTiers {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		tn := cfg.SkillTiers[s]
		if _, ok := cfg.Tiers[tn]; !ok && !optOut(tn) {
			p.warn("models.skillTiers."+s, "tier %q is not defined in models.tiers; the skill falls back to models.default, or keeps the current model", tn)
		}
	}
	if len(cfg.Tiers) == 0 && (cfg.Default != nil || len(cfg.SkillTiers) > 0) {
		p.warn("models.tiers", "no tiers are defined, so nothing switches (default and skillTiers take effect once tiers exist)")
	}
	if p.failed() {
		return DefaultConfig(), p.diags
	}
	return cfg, p.diags
}

func (p *parser) tiers(raw json.RawMessage, key string, cfg *Config) {
	m, keys, ok := p.object(raw, key)
	if !ok {
		return
	}
	for _, name := range keys {
		tkey := key + "." + name
		n := normTier(name)
		switch {
		case n == "":
			p.fail(tkey, "a tier name cannot be empty")
			continue
		case optOut(n):
			p.fail(tkey, "%q is reserved: modelTier %q means keep the current model", name, n)
			continue
		case n == "default":
			p.fail(tkey, "\"default\" is reserved for models.default")
			continue
		}
		if _, dup := cfg.Tiers[n]; dup {
			p.fail(tkey, "tier names are case-insensitive and %q is defined twice", n)
			continue
		}
		if t, ok := p.tier(m[name], tkey); ok {
			cfg.Tiers[n] = t
		}
	}
}

// tier parses one {provider, model, thinkingLevel?, scope?} object.
func (p *parser) tier(raw json.RawMessage, key string) (Tier, bool) {
	m, keys, ok := p.object(raw, key)
	if !ok {
		return Tier{}, false
	}
	t := Tier{Scope: ScopeSession}
	good := true
	for _, k := range keys {
		v := m[k]
		fk := key + "." + k
		switch k {
		case "provider", "model":
			s, ok := p.str(v, fk)
			if !ok {
				good = false
				continue
			}
			s = strings.TrimSpace(s)
			if s == "" {
				p.fail(fk, "cannot be empty")
				good = false
			}
			if k == "provider" {
				t.Model.Provider = s
			} else {
				t.Model.ID = s
			}
		case "thinkingLevel":
			s, ok := p.str(v, fk)
			if !ok {
				good = false
				continue
			}
			l, ok := p.level(s, fk)
			if !ok {
				good = false
			}
			t.ThinkingLevel = l
		case "scope":
			s, ok := p.str(v, fk)
			if !ok {
				good = false
				continue
			}
			switch sc := Scope(strings.ToLower(strings.TrimSpace(s))); sc {
			case ScopeSession, ScopeRun:
				t.Scope = sc
			default:
				p.fail(fk, "%q is not a scope; use \"session\" or \"run\"", s)
				good = false
			}
		default:
			p.warn(fk, "unknown key, ignored (known: provider, model, thinkingLevel, scope)")
		}
	}
	if _, ok := m["provider"]; !ok {
		p.fail(key, "missing \"provider\" (the provider id in Pi's model registry, e.g. \"anthropic\")")
		good = false
	}
	if _, ok := m["model"]; !ok {
		p.fail(key, "missing \"model\" (the model id in Pi's model registry, e.g. \"claude-sonnet-4-5\")")
		good = false
	}
	return t, good
}

// level parses a thinking level; "max" (accepted by the older extension) is
// read as "xhigh", Pi's highest level, which the host clamps further.
func (p *parser) level(s, key string) (ThinkingLevel, bool) {
	l := ThinkingLevel(strings.ToLower(strings.TrimSpace(s)))
	if l == "max" {
		p.warn(key, "\"max\" is not one of Pi's thinking levels; using \"xhigh\" (Pi lowers it to the model's highest level)")
		return ThinkingXHigh, true
	}
	if l.Rank() < 0 {
		p.fail(key, "%q is not a thinking level; use one of off, minimal, low, medium, high, xhigh", s)
		return "", false
	}
	return l, true
}

func (p *parser) skillTiers(raw json.RawMessage, key string, cfg *Config) {
	m, keys, ok := p.object(raw, key)
	if !ok {
		return
	}
	for _, skill := range keys {
		sk := key + "." + skill
		s, ok := p.str(m[skill], sk)
		if !ok {
			continue
		}
		n := normTier(s)
		if n == "" {
			p.fail(sk, "the tier name cannot be empty (use \"none\" to keep the current model)")
			continue
		}
		cfg.SkillTiers[skill] = n
	}
}

// defaultRef parses models.default: null, a tier name, a model written as
// "provider/id" (optionally ":thinking"), or a tier object.
func (p *parser) defaultRef(raw json.RawMessage, tiers map[string]Tier) *DefaultRef {
	const key = "models.default"
	switch kind(raw) {
	case "null":
		return nil
	case "an object":
		if t, ok := p.tier(raw, key); ok {
			return &DefaultRef{Tier: t}
		}
		return nil
	case "a string":
	default:
		p.fail(key, "must be null, a tier name, \"provider/model\" or a tier object, got %s", kind(raw))
		return nil
	}
	s, _ := p.str(raw, key)
	s = strings.TrimSpace(s)
	if t, ok := tiers[normTier(s)]; ok {
		return &DefaultRef{TierName: normTier(s), Tier: t}
	}
	if optOut(normTier(s)) {
		p.warn(key, "%q means no default; write null", s)
		return nil
	}
	ref, level, ok := ParseModel(s)
	if !ok {
		if s == "" {
			p.fail(key, "cannot be empty; write null for no default")
		} else {
			p.fail(key, "%q is neither a tier defined in models.tiers nor a model written \"provider/model\"", s)
		}
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
