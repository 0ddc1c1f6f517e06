package protocol

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// sessionMessages are the messages of a session of n model requests over
// skills names (gen.SessionJSON, with the provider's usage).
func sessionMessages(tb testing.TB, n int, names []string) []host.Message {
	var msgs []host.Message
	if err := json.Unmarshal(gen.SessionJSON(n, names, true), &msgs); err != nil {
		tb.Fatal(err)
	}
	return msgs
}

// BenchmarkBeforeRequestSession: the before_request of one more model
// request in a session of n requests (a third of them skill loads), as
// the bridge sends it: "deltas" sends the two messages the request
// appends (each iteration one more request, up to 2,000; then the same
// again, empty); "places" the same, asking for the loads' places as the
// Pi 1.6 bridge does; "loads" is the protocol before the context model,
// every load listed with every request. The cost of deltas and places is
// to stay flat in n.
func BenchmarkBeforeRequestSession(b *testing.B) {
	const more = 2000
	for _, n := range scaleSizes {
		for _, places := range []bool{false, true} {
			name := map[bool]string{false: "deltas", true: "places"}[places]
			b.Run(fmt.Sprintf("%s/requests=%d", name, n), func(b *testing.B) {
				c := startScale(b)
				names := scaleInit(b, c, 28)
				msgs := sessionMessages(b, n+more, names)
				base := 1 + 2*n
				c.roundTrip(b, frameOf(b, 2, MethodBeforeRequest, BeforeRequestParams{Messages: msgs[:base], SystemPromptSize: 8000, Places: places}))
				frames := make([][]byte, more+1)
				for i := range more {
					from := base + 2*i
					frames[i] = frameOf(b, 3+i, MethodBeforeRequest, BeforeRequestParams{From: from, Messages: msgs[from : from+2], SystemPromptSize: 8000, SincePreviousMs: 1200, Places: places})
				}
				frames[more] = frameOf(b, 3+more, MethodBeforeRequest, BeforeRequestParams{From: len(msgs), Messages: []host.Message{}, SystemPromptSize: 8000, SincePreviousMs: 1200, Places: places})
				i := 0
				for b.Loop() {
					c.roundTrip(b, frames[min(i, more)])
					i++
				}
			})
		}
		b.Run(fmt.Sprintf("loads/requests=%d", n), func(b *testing.B) {
			c := startScale(b)
			names := scaleInit(b, c, 28)
			var loads []LoadRef
			off := int64(8000)
			for i := range n {
				if i%3 == 0 {
					loads = append(loads, LoadRef{ID: fmt.Sprintf("call_%08d", i), Skill: names[i%len(names)], Kind: lifecycle.ByTool, Size: 6000, Hash: fmt.Sprintf("%064x", i), Offset: off})
					off += 6000
				}
				off += 400
			}
			req := frameOf(b, 3, MethodBeforeRequest, BeforeRequestParams{Loads: loads, Total: off, SincePreviousMs: 1200})
			c.roundTrip(b, req)
			for b.Loop() {
				c.roundTrip(b, req)
			}
		})
	}
}
