package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// A body the bridge found whole in a bash result (details.skillBody,
// host tool_result) is a load to replay as it is to the sidecar: it is
// archived once the work moves on. Without the detail (an older bridge)
// the result is no load.
func TestReplayBashDeliveredBody(t *testing.T) {
	session := func(detail bool) string {
		sb := newSessionBuilder(t, "b")
		usage := map[string]any{"input": 0, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1}
		body := "---\nname: alpha\ndescription: Alpha things.\n---\n\n" + strings.Repeat("alpha rule. ", 500)
		for turn := 1; turn <= 4; turn++ {
			prompt := "now do the beta work, all of the beta work"
			if turn == 1 {
				prompt = "alpha things please"
			}
			sb.add(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}})
			if turn == 1 {
				id := "c1"
				res := map[string]any{"role": "toolResult", "toolCallId": id, "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": body}}, "isError": false}
				if detail {
					res["details"] = map[string]any{"loadId": id, "skillBody": map[string]any{"skill": "alpha", "hash": "h"}}
				}
				sb.add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": id, "name": "bash", "arguments": map[string]any{"command": "base64 -d alpha.b64"}}},
					"provider": "fake", "model": "a", "usage": usage, "stopReason": "toolUse"})
				sb.add(res)
			}
			sb.add(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": fmt.Sprint("ok ", turn)}}, "provider": "fake", "model": "a", "usage": usage, "stopReason": "stop"})
		}
		return sb.file()
	}
	cfg := rules.Default()
	cfg.MinKeep = 0
	cfg.CacheAware.Enabled = false
	for _, detail := range []bool{true, false} {
		rep := replayFile(t, session(detail), Options{Strategies: []StrategySpec{EngineSpec("on", world(alphaBetaCatalog(), cfg))}})
		want := 0
		if detail {
			want = 1
		}
		if got := rep.Strategies[1].Archives; got != want {
			t.Errorf("details.skillBody %v: %d archives, want %d", detail, got, want)
		}
	}
}
