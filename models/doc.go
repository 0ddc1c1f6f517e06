// Package models resolves which model a skill should run on, from the
// model tiers of skill-lifecycle.json's `models` key.
//
//	cfg, diags := models.ParseAt(raw, path, line) // the key as written
//	t := models.Tiers{Config: cfg, Registry: registry}
//	state, actions := t.Load(state, loads) // switch, restore, report, note
//
// A skill asks for a tier (metadata.modelTier) or is given one in
// skillTiers; each event (skills loaded by one message, a run starting or
// ending, a model selected, a failed switch) turns a serialisable State
// into the next and the actions to carry out, each with a cause a person
// can read. Explain runs the same decision for one skill without changing
// anything. It is pure and does no I/O. docs/models.md describes the
// behaviour.
package models
