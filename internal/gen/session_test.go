package gen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/host"
)

// TestSessionJSON: the session decodes into the host's messages, one
// prompt and two messages a request, every third request the skill tool
// loading the next skill in turn, its load id the call's.
func TestSessionJSON(t *testing.T) {
	var msgs []host.Message
	if err := json.Unmarshal(SessionJSON(7, []string{"a", "b"}, true), &msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 15 || msgs[0].Role != "user" {
		t.Fatalf("%d messages, first %q: want 15, a user prompt first", len(msgs), msgs[0].Role)
	}
	var loads []string
	for i, m := range msgs[1:] {
		switch {
		case i%2 == 0 && (m.Role != "assistant" || m.Usage == nil || m.StopReason != "toolUse"):
			t.Errorf("message %d: %+v, want an assistant's tool call with usage", i+1, m)
		case i%2 == 1 && m.Role != "toolResult":
			t.Errorf("message %d: role %q, want toolResult", i+1, m.Role)
		case m.Details != nil:
			var blocks []host.Block
			if err := json.Unmarshal(m.Content, &blocks); err != nil || len(blocks) != 1 || blocks[0].Text == nil {
				t.Fatalf("message %d: content %v, %v: want one text block", i+1, blocks, err)
			}
			if m.ToolName != host.ToolName || m.Details.LoadID != m.ToolCallID || !strings.HasPrefix(*blocks[0].Text, `<skill_content name="`+m.Details.Skill+`">`) {
				t.Errorf("message %d: tool %q, load id %q of call %q: want the skill tool's body of %s", i+1, m.ToolName, m.Details.LoadID, m.ToolCallID, m.Details.Skill)
			}
			loads = append(loads, m.Details.Skill)
		}
	}
	if got := strings.Join(loads, " "); got != "a b a" {
		t.Errorf("loads %q, want a b a (requests 0, 3 and 6)", got)
	}
	var bare []host.Message
	if err := json.Unmarshal(SessionJSON(1, nil, false), &bare); err != nil || len(bare) != 3 || bare[1].Usage != nil || bare[2].Details != nil {
		t.Errorf("no skills, no usage: %+v, %v", bare, err)
	}
}
