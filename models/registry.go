package models

import "math"

// ModelInfo is what resolution needs from one model of the host's registry
// (Pi's Model: provider, id, cost.input, cost.output, reasoning, and the
// thinking levels the host offers for it).
type ModelInfo struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
	// InputPrice and OutputPrice are USD per million tokens; nil when the
	// registry has no price (custom models often have none).
	InputPrice  *float64 `json:"inputPrice,omitempty"`
	OutputPrice *float64 `json:"outputPrice,omitempty"`
	// Reasoning is Pi's flag: a model without it offers only "off".
	Reasoning bool `json:"reasoning"`
	// ThinkingLevels, when not empty, lists the levels the host offers for
	// this model and overrides Reasoning (Pi adds "xhigh" for a few models).
	ThinkingLevels []ThinkingLevel `json:"thinkingLevels,omitempty"`
}

// Ref is the model's identity.
func (m ModelInfo) Ref() ModelRef { return ModelRef{Provider: m.Provider, ID: m.ID} }

// Price is input plus output price per million tokens, and false when
// either is missing or not a finite non-negative number.
func (m ModelInfo) Price() (float64, bool) {
	ok := func(p *float64) bool { return p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) && *p >= 0 }
	if !ok(m.InputPrice) || !ok(m.OutputPrice) {
		return 0, false
	}
	return *m.InputPrice + *m.OutputPrice, true
}

// Levels is the set of thinking levels the host offers for the model, in
// increasing order.
func (m ModelInfo) Levels() []ThinkingLevel {
	if len(m.ThinkingLevels) > 0 {
		var out []ThinkingLevel
		for _, l := range ThinkingLevels { // keep the canonical order, drop junk
			for _, v := range m.ThinkingLevels {
				if v == l {
					out = append(out, l)
					break
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	if !m.Reasoning {
		return []ThinkingLevel{ThinkingOff}
	}
	return ThinkingLevels[:ThinkingHigh.Rank()+1]
}

// Clamp returns the level the host would use for l on this model: the
// highest offered level not above l, or the lowest offered level when all
// are above it. An unset level stays unset.
func (m ModelInfo) Clamp(l ThinkingLevel) ThinkingLevel {
	if l.Rank() < 0 {
		return ThinkingUnset
	}
	levels := m.Levels()
	best := levels[0]
	for _, v := range levels {
		if v.Rank() <= l.Rank() {
			best = v
		}
	}
	return best
}

// Registry is the host's model registry as resolution sees it. The zero
// Registry means "not available" (replay or explain without the host's
// registry): no model is reported unknown and no price is known, so only
// helper downgrades, which need prices, are affected.
type Registry struct {
	models    map[ModelRef]ModelInfo
	available bool
}

// NewRegistry indexes the host's models. A model listed twice keeps its
// last entry.
func NewRegistry(list []ModelInfo) Registry {
	r := Registry{models: make(map[ModelRef]ModelInfo, len(list)), available: true}
	for _, m := range list {
		r.models[m.Ref()] = m
	}
	return r
}

// Available reports whether the registry came from the host (NewRegistry).
func (r Registry) Available() bool { return r.available }

// Find looks a model up.
func (r Registry) Find(ref ModelRef) (ModelInfo, bool) {
	m, ok := r.models[ref]
	return m, ok
}

// Comparison is how a target model compares in cost with a reference one.
type Comparison string

// Comparisons.
const (
	Cheaper    Comparison = "cheaper"
	NotCheaper Comparison = "not-cheaper"
	Unknown    Comparison = "unknown" // a price or a thinking level is missing
)

// Compare tells whether moving from `from` to `to` is cheaper. Two
// different models compare by input+output price; the same model compares
// by thinking level after clamping both to what the model offers (a lower
// level is cheaper). A missing price, a model not in the registry, or an
// unset thinking level on the same model gives Unknown.
func (r Registry) Compare(from, to Selection) Comparison {
	if from.Model == to.Model {
		if from.Thinking == ThinkingUnset || to.Thinking == ThinkingUnset {
			return Unknown
		}
		a, b := from.Thinking, to.Thinking
		if m, ok := r.Find(from.Model); ok {
			a, b = m.Clamp(a), m.Clamp(b)
		}
		if b.Rank() < a.Rank() {
			return Cheaper
		}
		return NotCheaper
	}
	fm, ok1 := r.Find(from.Model)
	tm, ok2 := r.Find(to.Model)
	if !ok1 || !ok2 {
		return Unknown
	}
	fp, ok1 := fm.Price()
	tp, ok2 := tm.Price()
	if !ok1 || !ok2 {
		return Unknown
	}
	if tp < fp {
		return Cheaper
	}
	return NotCheaper
}
