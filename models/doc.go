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
//
// A host calls, for each of its events:
//
//   - session start or resume, and every model change: ModelSelected (the
//     echo of a switch the host made for us is recognised; any other change
//     is the user's);
//   - the skill tool calls of one assistant message, or one /skill:name:
//     Load, in call order;
//   - a run starting or ending: RunStart, RunEnd;
//   - a switch that failed (setModel returned false or threw): SwitchFailed;
//   - /skills-model reset: Reset.
//
// ActSwitch and ActRestore mean: set the model, then, when To.Thinking is
// set, the thinking level (a host re-clamps the level on a model change, so
// the level goes second). ActReport is shown to the user; ActNote needs no
// host call. The zero Registry (replay, explain without a host) knows no
// price, so helpers under allow-downgrade do not switch.
package models
