// Package rules decides which loaded skill bodies stay in the context and
// which are archived, and holds the configuration (skill-lifecycle.json)
// those decisions read.
//
//	user, diags := rules.Parse(data, path) // one file; diagnostics name line and key
//	cfg := rules.Merge(user, project, rules.Trusted)
//	out := rules.JudgePrompt(rules.PromptCase{Config: cfg, Bodies: bodies, Prompt: prompt, Ranker: index})
//	// out.Verdicts: keep or archive each body, with a reason a person can read
//
// JudgeLoad judges the bodies when a skill is loaded mid-run, PlanArchives
// times the archives under prefix-cache pricing, PlanReattach fits the
// bodies to send again after a compaction. It is pure: it works on the
// values it is handed and does no I/O. docs/config.md documents each key.
package rules
