// Package conf holds the diagnostic type shared by everything that reads
// skill-lifecycle's configuration and skill files: a Diagnostic names the
// file, the line and the key of one problem, with its Severity.
//
//	d := conf.Diagnostic{File: "skill-lifecycle.json", Line: 3, Key: "topK", Severity: conf.Error, Message: "must be a whole number"}
//	fmt.Println(d) // skill-lifecycle.json:3: error: topK: must be a whole number
//
// It does no I/O. The packages rules, models and skills name its types
// (rules.Diagnostic, rules.Severity, skills.Severity are aliases).
package conf
