// Package host is the host model, written once and used by the sidecar
// (package protocol) and replay alike: the world (skills, configuration,
// catalog and index, built and replaced whole), configuration and trust
// loading, the skill tool and the guard, the "already loaded" gate, the
// loads of a request and their offsets, the model's cache prices and
// lifetime, records and their restore, compaction and the re-attach
// region, and the /skills-* commands. A Session takes one host event per
// method, drives the lifecycle engine through its one door, and sends
// what it decided to a Sink.
package host
