package host

import (
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// CacheOf is what the host says of model m's prompt cache: its prices
// relative to its input price and its declared lifetime for the
// retention tier in use ("long", else the short tier). nil when it says
// nothing of either.
func CacheOf(m HostModel, retention string) *rules.ModelCache {
	mc := rules.ModelCache{Model: m.Provider + "/" + m.ID}
	if m.Input != nil && m.CacheRead != nil {
		w := 0.0
		if m.CacheWrite != nil {
			w = *m.CacheWrite
		}
		if r, w, ok := rules.ModelCachePrices(*m.Input, *m.CacheRead, w); ok {
			mc.ReadPrice, mc.WritePrice = r, w
		}
	}
	if pc := m.PromptCache; pc != nil {
		ttl := pc.Short
		if retention == "long" {
			ttl = pc.Long
		}
		if ttl > 0 && ttl <= rules.MaxCacheTTLSeconds {
			mc.TTLSeconds = ttl
		}
	}
	if mc.ReadPrice == 0 && mc.TTLSeconds == 0 {
		return nil
	}
	return &mc
}

// modelCache is CacheOf the current model, found in the host's list.
func modelCache(list []HostModel, cur *ModelRef, retention string) *rules.ModelCache {
	if cur == nil {
		return nil
	}
	for _, m := range list {
		if m.Provider == cur.Provider && m.ID == cur.ID {
			return CacheOf(m, retention)
		}
	}
	return nil
}

// modelCache is what the session tells the engine of the current
// model's cache: its prices and lifetime (modelCache), and with
// Options.CharsPerToken the price of a character of input, for the
// reasons' figures.
func (s *Session) modelCache() *rules.ModelCache {
	mc := modelCache(s.models, s.current, s.retention)
	if s.cpt <= 0 || s.current == nil {
		return mc
	}
	for _, m := range s.models {
		if m.Provider == s.current.Provider && m.ID == s.current.ID && m.Input != nil && *m.Input > 0 {
			if mc == nil {
				mc = &rules.ModelCache{Model: m.Provider + "/" + m.ID}
			}
			mc.UnitUSD = *m.Input / 1e6 / s.cpt
		}
	}
	return mc
}

// registryOf turns the host's model list into the tier machine's registry.
func registryOf(list []HostModel) models.Registry {
	infos := make([]models.ModelInfo, 0, len(list))
	for _, m := range list {
		if m.Provider == "" || m.ID == "" {
			continue
		}
		mi := models.ModelInfo{Provider: m.Provider, ID: m.ID, InputPrice: m.Input, OutputPrice: m.Output, Reasoning: m.Reasoning}
		for _, l := range m.Thinking {
			mi.ThinkingLevels = append(mi.ThinkingLevels, models.ThinkingLevel(l))
		}
		infos = append(infos, mi)
	}
	return models.NewRegistry(infos)
}

// selection is the host's current model as the tier machine sees it.
func selection(m *ModelRef, thinking string) (models.Selection, bool) {
	if m == nil || m.Provider == "" || m.ID == "" {
		return models.Selection{}, false
	}
	return models.Selection{Model: models.ModelRef{Provider: m.Provider, ID: m.ID}, Thinking: models.ThinkingLevel(thinking)}, true
}

// hostModelDecisions drops the model-state record from the decisions the
// engine takes when told the host's current model at start or after a
// restore. That model is state the host already holds, not a decision:
// every session/restore ends by telling the engine the host's model again,
// so recording it only added one model-state entry to the session at every
// (re)start of the sidecar.
func hostModelDecisions(ds []lifecycle.Decision) []lifecycle.Decision {
	out := ds[:0:0]
	for _, d := range ds {
		if d.Action != lifecycle.ActModelState {
			out = append(out, d)
		}
	}
	return out
}
