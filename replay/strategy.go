package replay

import (
	"fmt"
	"os"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Strategy decides which bodies are archived. Replay tells it what
// happens in the session (user prompts, skill loads, runs starting and
// ending, requests about to be sent) and asks, before each request, which
// bodies are archived: load id -> the placeholder text that replaces the
// body in the context.
type Strategy interface {
	Observe(ev lifecycle.Event)
	Archived() map[string]string
}

// StrategySpec names a strategy and makes a fresh one for each session
// branch.
type StrategySpec struct {
	Name string
	New  func() Strategy
}

// KeepAllName is the baseline strategy's name.
const KeepAllName = "keep-all"

// KeepAll archives nothing: the 100% baseline.
type KeepAll struct{}

// Observe ignores the event.
func (KeepAll) Observe(lifecycle.Event) {}

// Archived is always empty.
func (KeepAll) Archived() map[string]string { return nil }

// KeepAllSpec is the baseline strategy.
func KeepAllSpec() StrategySpec {
	return StrategySpec{Name: KeepAllName, New: func() Strategy { return KeepAll{} }}
}

// EngineStrategy drives a lifecycle engine. The archived set is asked of
// the engine again only after a decision that can change it.
type EngineStrategy struct {
	Engine *lifecycle.Engine
	arch   map[string]string
	dirty  bool
}

// NewEngineStrategy wraps an engine.
func NewEngineStrategy(e *lifecycle.Engine) *EngineStrategy {
	return &EngineStrategy{Engine: e, dirty: true}
}

// Observe hands the event to the engine.
func (s *EngineStrategy) Observe(ev lifecycle.Event) {
	ds, _ := s.Engine.Apply(ev)
	for _, d := range ds {
		switch d.Action {
		case lifecycle.ActLoad, lifecycle.ActRun, lifecycle.ActTopic:
		default:
			s.dirty = true
		}
	}
}

// Archived is the engine's archived set (shared; do not modify).
func (s *EngineStrategy) Archived() map[string]string {
	if s.dirty {
		s.arch, s.dirty = s.Engine.Archived(), false
	}
	return s.arch
}

// EngineSpec is a strategy running the engine with cfg over cat.
func EngineSpec(name string, cat lifecycle.Catalog, cfg rules.Config) StrategySpec {
	return StrategySpec{Name: name, New: func() Strategy { return NewEngineStrategy(lifecycle.New(cat, cfg)) }}
}

// LoadConfigFile reads a skill-lifecycle.json file as the only
// configuration (over the defaults). Warnings are returned; an error in
// the file is an error.
func LoadConfigFile(path string) (rules.Config, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return rules.Config{}, nil, err
	}
	frag, diags := rules.Parse(data, path)
	var warns []string
	for _, d := range diags {
		if d.Severity == skills.Error {
			return rules.Config{}, nil, fmt.Errorf("%s", d.String())
		}
		warns = append(warns, d.String())
	}
	return rules.Merge(frag, rules.Fragment{}, rules.Untrusted), warns, nil
}
