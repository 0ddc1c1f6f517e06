package conf

import (
	"fmt"
	"strings"
)

// Severity orders diagnostics.
type Severity int

// Severities.
const (
	// Warning: what is diagnosed is left out or corrected, and the rest
	// is used.
	Warning Severity = iota
	// Error: the reader ignores the whole unit it reads (a configuration
	// file, the models key, a skill in lenient mode).
	Error
)

func (s Severity) String() string {
	if s == Error {
		return "error"
	}
	return "warning"
}

// Diagnostic is one problem found in a configuration file.
type Diagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"` // 1-based, 0 when unknown
	Key      string   `json:"key,omitempty"`  // e.g. "topK", "rules[1].weight", "models.tiers.big"
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String writes d as file:line: severity: key: message (the line and the
// key left out when unknown).
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
	}
	fmt.Fprintf(&b, ": %s: ", d.Severity)
	if d.Key != "" {
		fmt.Fprintf(&b, "%s: ", d.Key)
	}
	b.WriteString(d.Message)
	return b.String()
}
