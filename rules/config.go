package rules

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/internal/conf"
)

// FileName is the name of the configuration file, read from the user's Pi
// folder and from a trusted project's .pi/ folder.
const FileName = "skill-lifecycle.json"

// Rule is one keyword rule: it keeps the body of SkillName when the share
// of its keywords found in the text being judged, times Weight, reaches
// Config.Threshold.
type Rule struct {
	SkillName string   `json:"skillName" conf:",required,trim,nonempty"`
	Keywords  []string `json:"keywords" conf:",required,trim,nonempty,minitems=1,item=keyword"`
	Weight    float64  `json:"weight" conf:",min=0,max=1e6"` // 1 when the file leaves it out
}

// DefaultConf sets the defaults of a rule read from a file.
func (r *Rule) DefaultConf() { r.Weight = 1 }

// CheckConf refuses a rule of weight 0, which would never keep anything.
func (r *Rule) CheckConf(d *conf.Decoder, key string) {
	if r.Weight == 0 {
		d.Fail(key+".weight", "must be above 0 (a rule of weight 0 never keeps anything)")
	}
}

// Config is the complete, effective configuration: every option with a
// value. Default returns the documented defaults; Merge builds one from the
// user's and the project's files. docs/config.md documents each field.
//
// A field is a key of the file: its json tag names it and its conf tag
// bounds it (internal/conf.Decoder says how). A new key is a field here
// and its default in Default.
type Config struct {
	Enabled       bool    `json:"enabled"`
	TopK          int     `json:"topK" conf:",min=0,max=1000000"`
	RelativeScore float64 `json:"relativeScore" conf:",min=0,max=1"`
	// TaskRelativeScore is the lower bar a body of the current task (loaded
	// by the latest run that loaded a skill) clears to stay at a prompt.
	TaskRelativeScore     float64  `json:"taskRelativeScore" conf:",min=0,max=1"`
	MinSignal             float64  `json:"minSignal" conf:",min=0,max=1e6"`
	InferEntrySkill       bool     `json:"inferEntrySkill"`
	EntrySkill            string   `json:"entrySkill" conf:",trim"`
	PinEntrySkill         bool     `json:"pinEntrySkill"`
	HelperSkills          []string `json:"helperSkills" conf:",trim,nonempty,item=skill name"`
	ProtectCallers        bool     `json:"protectCallers"`
	ProtectLoader         bool     `json:"protectLoader"`
	Rules                 []Rule   `json:"rules" conf:",item=rule"`
	Threshold             float64  `json:"threshold" conf:",min=0,max=1e6"`
	Pinned                []string `json:"pinned" conf:",trim,nonempty,item=skill name"`
	MinKeep               int      `json:"minKeep" conf:",min=0,max=1000000"`
	MaxKeep               int      `json:"maxKeep" conf:",min=0,max=1000000"`
	EvictOnSkillLoad      bool     `json:"evictOnSkillLoad"`
	BlockDirectSkillReads bool     `json:"blockDirectSkillReads"`
	// ArchiveResources archives the files of a skill's folder the model
	// read while its body was live (references, assets) with that body.
	ArchiveResources bool `json:"archiveResources"`
	Verbose          bool `json:"verbose"`
	// Models is the `models` key as written (model tiers, parsed by the
	// models package); nil when no file sets it. ModelsFile and
	// ModelsLine say where it was written (the file's path, the line
	// its value starts on), for the diagnostics of the models package.
	Models                  json.RawMessage `json:"models,omitempty"`
	ModelsFile              string          `json:"-"`
	ModelsLine              int             `json:"-"`
	SkipOnShortPrompts      bool            `json:"skipOnShortPrompts"`
	MinScorablePromptLength int             `json:"minScorablePromptLength" conf:",min=0,max=1000000"`
	TopicChangeThreshold    float64         `json:"topicChangeThreshold" conf:",min=0,max=1"`
	// TrustProjectConfig, read from the user's file only, decides whether
	// the project's file counts when the host has no notion of trust (Pi
	// 0.73). Off by default: a repository's file applies only when the
	// user opted in (docs/config.md, "Where the files are").
	TrustProjectConfig bool `json:"trustProjectConfig"`
	// CacheAware decides when dropped bodies are archived (cache-aware
	// archiving); off, they are archived as soon as they are judged.
	CacheAware CacheAware `json:"cacheAware"`
	// Dedupe is what the skill tool does for a body already visible:
	// DedupeAlreadyLoaded or DedupeArchiveOlder (docs/protocol.md).
	Dedupe string `json:"dedupe" conf:",oneof=already-loaded|archive-older"`
	// Compaction is what happens to the loaded bodies when the host
	// compacts the conversation (docs/protocol.md).
	Compaction Compaction `json:"compaction"`
	// ArchiveVia is how the host applies an archival: ArchiveViaContextEdit
	// (the default), ArchiveViaHook or ArchiveViaContextEditOnly
	// (docs/pi-host.md, *Context edits*). The engine does not read it; the
	// sidecar passes it to the host.
	ArchiveVia string `json:"archiveVia" conf:",oneof=hook|context_edit|context_edit_only"`
	// ListingBudget bounds the skills section of the system prompt, in
	// characters; 0 chooses it from the current model's context window
	// (host.ListingBudget).
	ListingBudget int `json:"listingBudget" conf:",min=0,max=10000000"`
	// Hint adds a line after a prompt that matches one skill clearly
	// whose body is not live (host/hint.go).
	Hint Hint `json:"hint"`
}

// Hint is the `hint` key: on or off, and how clear a match must be. A
// prompt's best skill is named when its score is at least MinScore and
// at least Margin times the runner-up's.
type Hint struct {
	Enabled  bool    `json:"enabled"`
	MinScore float64 `json:"minScore" conf:",min=0,max=1e6"`
	Margin   float64 `json:"margin" conf:",min=1,max=1e6"`
}

// DefaultHint is the `hint` key's default.
func DefaultHint() Hint { return Hint{Enabled: true, MinScore: 30, Margin: 2.5} }

// Default returns the configuration used when no file sets anything.
func Default() Config {
	return Config{
		Enabled:                 true,
		TopK:                    3,
		RelativeScore:           0.65,
		TaskRelativeScore:       0.33,
		MinSignal:               2,
		InferEntrySkill:         true,
		EntrySkill:              "",
		PinEntrySkill:           true,
		HelperSkills:            []string{},
		ProtectCallers:          false,
		ProtectLoader:           false,
		Rules:                   []Rule{},
		Threshold:               0.15,
		Pinned:                  []string{},
		MinKeep:                 2,
		MaxKeep:                 0,
		EvictOnSkillLoad:        true,
		BlockDirectSkillReads:   true,
		ArchiveResources:        true,
		Verbose:                 true,
		Models:                  nil,
		SkipOnShortPrompts:      true,
		MinScorablePromptLength: 15,
		TopicChangeThreshold:    0.7,
		TrustProjectConfig:      false,
		CacheAware:              DefaultCacheAware(),
		Dedupe:                  DefaultDedupe,
		Compaction:              DefaultCompaction(),
		ArchiveVia:              ArchiveViaContextEdit,
		ListingBudget:           0,
		Hint:                    DefaultHint(),
	}
}

// IsPinned reports whether the configuration pins skill (the `pinned`
// list; entry pinning is decided by the engine, which knows the entry).
func (c Config) IsPinned(skill string) bool { return slices.Contains(c.Pinned, skill) }

// IsHelper reports whether the configuration lists skill in helperSkills.
func (c Config) IsHelper(skill string) bool { return slices.Contains(c.HelperSkills, skill) }

// ReleasesRoutedEntry reports whether the entry skill's body, pinned by
// pinEntrySkill, may go once it has routed: archiving and cache-aware
// archiving on, with cacheAware.releaseRoutedEntry.
func (c Config) ReleasesRoutedEntry() bool {
	return c.Enabled && c.CacheAware.Enabled && c.CacheAware.ReleaseRoutedEntry
}

// LargeBody reports whether a body of size characters is large
// (cacheAware.largeBodyChars): a mid-run load does not keep it on rank.
// Archiving and cache-aware archiving on, and size at least
// largeBodyChars.
func (c Config) LargeBody(size int64) bool {
	return c.Enabled && c.CacheAware.Enabled && c.CacheAware.LargeBodyChars > 0 && size >= int64(c.CacheAware.LargeBodyChars)
}

// Clone returns a copy that shares no slices with c.
func (c Config) Clone() Config {
	d := c
	d.HelperSkills = slices.Clone(c.HelperSkills)
	d.Pinned = slices.Clone(c.Pinned)
	d.Models = slices.Clone(c.Models)
	d.Rules = make([]Rule, len(c.Rules))
	for i, r := range c.Rules {
		r.Keywords = slices.Clone(r.Keywords)
		d.Rules[i] = r
	}
	return d
}

// Trust is what the host says about the project folder.
type Trust int

// Trust values. TrustUnknown is for hosts that have no notion of project
// trust: the user file's trustProjectConfig then decides.
const (
	TrustUnknown Trust = iota
	Trusted
	Untrusted
)

// ProjectCounts reports whether a project file is applied, given the
// user's file and what the host says about trust.
func ProjectCounts(user Fragment, trust Trust) bool {
	switch trust {
	case Trusted:
		return true
	case Untrusted:
		return false
	}
	if user.Sets("trustProjectConfig") {
		return user.Config.TrustProjectConfig
	}
	return Default().TrustProjectConfig
}

// Merge builds the effective configuration: defaults, then each key the
// user's file sets, then each key the project's file sets (a project
// `rules` list replaces the user's, as does a project `models` object),
// the project file counting only when ProjectCounts says so. A project
// file's trustProjectConfig is ignored: a project cannot vouch for itself.
func Merge(user, project Fragment, trust Trust) Config {
	c := Default()
	user.apply(&c, "")
	if ProjectCounts(user, trust) {
		project.apply(&c, "trustProjectConfig")
	}
	return c.Clone()
}

// CheckNames reports, as warnings, the skill names the configuration uses
// (entrySkill, pinned, helperSkills, rules) that no installed skill has,
// and a minKeep above a non-zero maxKeep (the cap can then never be met by
// archiving alone). file names the configuration in the diagnostics.
func CheckNames(c Config, file string, installed func(string) bool) []Diagnostic {
	var ds []Diagnostic
	warn := func(key, msg string) {
		ds = append(ds, Diagnostic{File: file, Key: key, Severity: Warning, Message: msg})
	}
	if c.EntrySkill != "" && !installed(c.EntrySkill) {
		warn("entrySkill", fmt.Sprintf("no installed skill is called %q; the declared or inferred entry applies", c.EntrySkill))
	}
	for i, n := range c.Pinned {
		if !installed(n) {
			warn(fmt.Sprintf("pinned[%d]", i), fmt.Sprintf("no installed skill is called %q", n))
		}
	}
	for i, n := range c.HelperSkills {
		if !installed(n) {
			warn(fmt.Sprintf("helperSkills[%d]", i), fmt.Sprintf("no installed skill is called %q", n))
		}
	}
	for i, r := range c.Rules {
		if !installed(r.SkillName) {
			warn(fmt.Sprintf("rules[%d].skillName", i), fmt.Sprintf("no installed skill is called %q; the rule never applies", r.SkillName))
		}
	}
	if c.MaxKeep > 0 && c.MinKeep > c.MaxKeep {
		warn("maxKeep", fmt.Sprintf("maxKeep %d is below minKeep %d: the %d most recent bodies are always kept, so the cap can be exceeded", c.MaxKeep, c.MinKeep, c.MinKeep))
	}
	return ds
}

// How the host applies an archival (the `archiveVia` key).
// ArchiveViaHook replaces the body in every request the host sends (Pi:
// the context hook) and leaves the session as recorded; it works in every
// host. ArchiveViaContextEdit, the default, also records the replacement
// in the host's session where the host can (Pi 1.6: a context_edit entry
// proposed at the next turn boundary), so the session, its compactions and
// its branches carry it; hosts without that (Pi 0.73) use the hook. The
// requests are the same either way (docs/benchmarks.md).
// ArchiveViaContextEditOnly applies it through the session alone, from the
// request after the decision (Pi 1.6), for measurement: it loses what
// cache-aware timing wins.
const (
	ArchiveViaHook            = "hook"
	ArchiveViaContextEdit     = "context_edit"
	ArchiveViaContextEditOnly = "context_edit_only"
)
