package models_test

import (
	"encoding/json"
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/models"
)

// ParseAt reads the `models` key as written in skill-lifecycle.json, at
// the line it starts on, so that each diagnostic names its line.
func ExampleParseAt() {
	raw := json.RawMessage(`{
    "tiers": {"small": {"provider": "openrouter", "model": "qwen/qwen3.7-flash", "scope": "run"}},
    "skillTiers": {"plot-figure": "Small", "release-notes": "big"}
  }`)
	cfg, diags := models.ParseAt(raw, "skill-lifecycle.json", 4)
	fmt.Println(cfg.Tiers["small"].Model, cfg.Tiers["small"].Scope, cfg.SkillTiers["plot-figure"])
	for _, d := range diags {
		fmt.Println(d)
	}
	// Output:
	// openrouter/qwen/qwen3.7-flash run small
	// skill-lifecycle.json:6: warning: models.skillTiers.release-notes: tier "big" is not defined in models.tiers; the skill falls back to models.default, or keeps the current model
}
