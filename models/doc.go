// Package models resolves which model a skill should run on. A skill asks
// for a tier (metadata.modelTier) or is given one in configuration; the
// user's configuration maps tiers to models the host knows. Resolution is
// pure: it takes the configuration, the host's model registry with prices,
// the current model and what else is loaded, and returns the switch or
// restore to make, with its cause.
package models
