// Package models resolves which model a skill should run on. A skill asks
// for a tier (metadata.modelTier) or is given one in configuration; the
// user's configuration (Parse) maps tiers to models the host knows.
// Resolution is pure and works on values: Tiers takes the configuration and
// the host's model registry with prices, and for each event (skills loaded
// by one message, a run starting or ending, a model selected by the host or
// the user, a switch that failed) turns a serialisable State into the next
// State and the actions to carry out (switch, restore, report, note), each
// with a cause a person can read. Explain runs the same decision for one
// skill without changing anything. docs/models.md describes the behaviour.
package models
