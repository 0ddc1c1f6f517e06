package gen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// SessionJSON is a JSON array of the messages of a synthetic Pi session
// of n model requests over the skills names, as Pi's context hook gives
// them: a user prompt, then for each request an assistant message with
// one tool call and that call's result. Every third call (the first
// included) is the skill tool loading the next of names in turn (a body
// of 6,000 characters, its load id the call id, as the bridge sets it);
// the others run `go test` through bash. With usage, each assistant
// message carries the provider's usage of its request. Decode it into
// the host's message type:
//
//	var msgs []host.Message
//	err := json.Unmarshal(gen.SessionJSON(1000, names, true), &msgs)
func SessionJSON(n int, names []string, usage bool) []byte {
	type block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	type details struct {
		LoadID string `json:"loadId"`
		Skill  string `json:"skill"`
		Hash   string `json:"hash"`
	}
	type usageOf struct {
		Input      int `json:"input"`
		CacheRead  int `json:"cacheRead"`
		CacheWrite int `json:"cacheWrite"`
	}
	type message struct {
		Role       string   `json:"role"`
		Content    []block  `json:"content"`
		ToolCallID string   `json:"toolCallId,omitempty"`
		ToolName   string   `json:"toolName,omitempty"`
		Timestamp  int64    `json:"timestamp,omitempty"`
		Details    *details `json:"details,omitempty"`
		Usage      *usageOf `json:"usage,omitempty"`
		StopReason string   `json:"stopReason,omitempty"`
	}
	msgs := make([]message, 0, 1+2*n)
	msgs = append(msgs, message{Role: "user", Content: []block{{Type: "text", Text: "work on the service"}}})
	for i := range n {
		id := fmt.Sprintf("call_%08d", i)
		tool, args, out := "bash", `{"command":"go test ./..."}`, strings.Repeat("ok  \tpkg\n", 40)
		var d *details
		if i%3 == 0 && len(names) > 0 {
			skill := names[(i/3)%len(names)]
			tool, args = skills.SkillToolName, `{"name":"`+skill+`"}`
			out = `<skill_content name="` + skill + `">` + strings.Repeat("Do the work step by step. ", 230) + `</skill_content>`
			d = &details{LoadID: id, Skill: skill, Hash: fmt.Sprintf("%064x", i)}
		}
		a := message{Role: "assistant", Content: []block{{Type: "toolCall", ID: id, Name: tool, Arguments: json.RawMessage(args)}},
			Timestamp: 1733100000000 + int64(i), StopReason: "toolUse"}
		if usage {
			a.Usage = &usageOf{Input: 20, CacheRead: 1000 * i, CacheWrite: 300}
		}
		msgs = append(msgs, a, message{Role: "toolResult", Content: []block{{Type: "text", Text: out}}, ToolCallID: id, ToolName: tool, Details: d})
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		panic(err) // plain values: cannot fail
	}
	return b
}
