//go:build e2e

package e2e

import "encoding/json"

// UsageString is the provider's usage string of a request body (its "tools"
// then "messages", re-serialised as the package comment says), for the live
// benchmark (bench/live), which re-reads kept request logs.
func UsageString(body []byte) (string, error) {
	var wire struct {
		Tools    json.RawMessage `json:"tools"`
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return "", err
	}
	return usageString(wire.Tools, wire.Messages)
}
