package hostile

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// The cost of one call in proportion to its size (issue 27, item 7): what
// a call allocates (runtime.MemStats.TotalAlloc) is compared between two
// sizes, or with the size of its input. Requests are encoded before the
// measure starts.

// measured sends a prepared request and returns what the process
// allocated until its response came, and the response.
func measured(t *testing.T, s *served, id int, body string) (uint64, rpcMsg) {
	t.Helper()
	var resp rpcMsg
	msg := frame([]byte(body))
	grew := testio.Allocated(func() {
		s.sendRaw(msg)
		resp = s.waitID(id)
	})
	if resp.Error != nil {
		t.Fatalf("error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	return grew, resp
}

// manyLoads are n loads of one skill, each with a file of its folder read
// after it, laid out one after the other in the request.
func manyLoads(n int) []protocol.LoadRef {
	out := make([]protocol.LoadRef, 0, 2*n)
	off := int64(4000)
	for i := range n {
		out = append(out,
			protocol.LoadRef{ID: fmt.Sprintf("call_%06d", i), Skill: "sql-migration", Kind: lifecycle.ByTool, Size: 6000, Hash: fmt.Sprintf("%064x", i), Offset: off},
			protocol.LoadRef{ID: fmt.Sprintf("read_%06d", i), Skill: "sql-migration", Kind: "resource", Path: "/pack/sql-migration/notes.md", Size: 800, Offset: off + 6100})
		off += 7000
	}
	return out
}

// TestHostileRPCManyLoadsLinear: a before_request that brings 3,000 loads
// of one skill allocates about ten times what one with 300 does, not a
// hundred times: each load walked every earlier body (to supersede the
// live copies, and to move the files that go with them), and the files
// moved one by one from copy to copy. The same for a session/restore of
// their records. Before the fix the ratios were 69× and 93×.
func TestHostileRPCManyLoadsLinear(t *testing.T) {
	const small, large = 300, 3000
	cost := map[string][2]uint64{}
	for k, n := range []int{small, large} {
		s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
		s.initialize(newPack(t))
		s.ok(s.call(protocol.MethodRunStart, map[string]any{}), nil)
		id, body := s.request(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{SincePreviousMs: 1200, Loads: manyLoads(n), Total: int64(n)*7000 + 8000})
		grew, resp := measured(t, s, id, body)
		var br protocol.BeforeRequestResult
		s.ok(resp, &br)
		// Every copy but the latest is superseded; whether each goes now
		// is the cache-aware timing's call, so only the bound is checked.
		if len(br.Archive) > 2*n {
			t.Fatalf("%d loads: %d replacements", n, len(br.Archive))
		}
		c := cost["before_request"]
		c[k] = grew
		cost["before_request"] = c

		var recs []json.RawMessage
		for i := range n {
			call, read := fmt.Sprintf("call_%06d", i), fmt.Sprintf("read_%06d", i)
			recs = append(recs,
				json.RawMessage(fmt.Sprintf(`{"v":1,"action":"load","id":%q,"skill":"sql-migration","size":6000,"kind":"tool","run":1}`, call)),
				json.RawMessage(fmt.Sprintf(`{"v":1,"action":"resource","id":%q,"skill":"sql-migration","of":%q,"path":"/pack/sql-migration/notes.md","size":800}`, read, call)))
		}
		id, body = s.request(protocol.MethodSessionRestore, map[string]any{"records": recs})
		grew, resp = measured(t, s, id, body)
		var rr protocol.SessionRestoreResult
		s.ok(resp, &rr)
		if rr.Restored != 2*n || len(rr.Problems) != 0 {
			t.Fatalf("restore of %d records: restored %d, problems %v", 2*n, rr.Restored, rr.Problems[:min(3, len(rr.Problems))])
		}
		c = cost["session/restore"]
		c[k] = grew
		cost["session/restore"] = c
	}
	for _, m := range []string{"before_request", "session/restore"} {
		c := cost[m]
		ratio := float64(c[1]) / float64(c[0])
		t.Logf("%s: %d loads %.1f MiB, %d loads %.1f MiB allocated: %.1f×", m, small, float64(c[0])/mib, large, float64(c[1])/mib, ratio)
		if ratio > 20 {
			t.Errorf("%s: ten times the loads allocated %.1f× as much, want at most 20× (linear)", m, ratio)
		}
	}
}

// TestHostileRPCHugePrompt: a user prompt of 4 MiB, judged against a loaded
// body after a first prompt set the topic, allocates a small multiple of
// its size: prose (few distinct words) at most 8×, a text of distinct words
// (each one stemmed, and the most frequent kept as the topic) at most 16×.
// Before the fix, 92× and 131×: the params went through jsonrpc2's
// interface decoding and encoding, and the prompt was turned into runes
// and listed word by word three times.
func TestHostileRPCHugePrompt(t *testing.T) {
	const size = 4 * mib
	prose := func() string {
		words := []string{"write", "a", "Postgres", "migration", "adding", "an", "index", "on", "the", "orders", "table", "with", "tests"}
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString(words[i%len(words)])
			if i%7 == 0 {
				b.WriteString(strconv.Itoa(i % 5000))
			}
			b.WriteByte(' ')
		}
		return b.String()[:size]
	}
	distinct := func() string {
		var b strings.Builder
		for i := 0; b.Len() < size-16; i++ {
			b.WriteString("w" + strconv.FormatInt(int64(i), 36) + " ")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name  string
		text  func() string
		bound float64
	}{{"prose", prose, 8}, {"distinct-words", distinct, 16}} {
		t.Run(tc.name, func(t *testing.T) {
			s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
			s.initialize(newPack(t))
			s.ok(s.call(protocol.MethodUserPrompt, protocol.UserPromptParams{Text: "release notes for the changelog"}), nil)
			loads := []protocol.LoadRef{{ID: "c1", Skill: "release-notes", Kind: "tool", Size: 400}, {ID: "c2", Skill: "go-tests", Kind: "tool", Size: 400}, {ID: "c3", Skill: "sql-migration", Kind: "tool", Size: 400}}
			s.ok(s.call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Loads: loads}), nil)
			text := tc.text()
			id, body := s.request(protocol.MethodUserPrompt, protocol.UserPromptParams{Text: text})
			grew, _ := measured(t, s, id, body)
			ratio := float64(grew) / float64(len(text))
			t.Logf("a %.1f MiB prompt: %.1f MiB allocated (%.1f× the prompt)", float64(len(text))/mib, float64(grew)/mib, ratio)
			if ratio > tc.bound {
				t.Errorf("the prompt allocated %.1f× its size, want at most %g×", ratio, tc.bound)
			}
			// The judgement was made: the oldest body, not among the two
			// most recent, was judged against the prompt.
			if list := s.listText(); !strings.Contains(list, "release-notes") {
				t.Errorf("/skills-list after the prompt:\n%s", list)
			}
		})
	}
}

// sessionOf is the messages of a session of n model requests, every
// third loading one of three skills (gen.SessionJSON).
func sessionOf(t *testing.T, n int) []host.Message {
	var msgs []host.Message
	if err := json.Unmarshal(gen.SessionJSON(n, []string{"sql-migration", "go-tests", "release-notes"}, false), &msgs); err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestHostileRPCPlacesDelta: in a long session whose host asks for the
// loads' places at every request (the Pi 1.6 bridge), a request that
// appends one skill load is answered that load's place alone, whether the
// session has 100 or 1,000 requests behind it: the places are a change
// set, like the replacements. Before, every answer listed every load (334
// at 1,000 requests), each marked by a scan of the archive: quadratic.
func TestHostileRPCPlacesDelta(t *testing.T) {
	const small, large = 100, 1000
	var cost [2]uint64
	for k, n := range []int{small, large} {
		s := startInProcess(t, protocol.Options{ServerVersion: "hostile", MaxMessage: 256 << 20})
		s.initialize(newPack(t))
		msgs := sessionOf(t, n+3)
		base := 1 + 2*n
		var br protocol.BeforeRequestResult
		s.ok(s.call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Messages: msgs[:base], SystemPromptSize: 8000, Places: true}), &br)
		if !br.PlacesReset || len(br.Places) != (n+2)/3 {
			t.Errorf("%d requests: the first answer has %d places (reset %v), want all %d with placesReset", n, len(br.Places), br.PlacesReset, (n+2)/3)
		}
		// Requests n and n+1 append a bash call each, n+2 a load (n is a
		// multiple of 3 plus 1).
		for i, from := range []int{base, base + 2, base + 4} {
			id, body := s.request(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{From: from, Messages: msgs[from : from+2], SystemPromptSize: 8000, SincePreviousMs: 1200, Places: true})
			grew, resp := measured(t, s, id, body)
			br = protocol.BeforeRequestResult{}
			s.ok(resp, &br)
			if br.PlacesReset || len(br.PlacesClear) != 0 {
				t.Errorf("%d requests, delta %d: placesReset %v, placesClear %v, want neither", n, i, br.PlacesReset, br.PlacesClear)
			}
			for _, p := range br.Places {
				if p.Index < from {
					t.Errorf("%d requests, delta %d: place %+v of a message sent before (from %d) answered again", n, i, p, from)
				}
			}
			cost[k] = grew
		}
		if len(br.Places) != 1 || br.Places[0].ID != fmt.Sprintf("call_%08d", n+2) {
			t.Errorf("%d requests: a load appended: places %+v, want its own alone", n, br.Places)
		}
	}
	t.Logf("one more request with places: %d requests %.0f KiB, %d requests %.0f KiB allocated", small, float64(cost[0])/1024, large, float64(cost[1])/1024)
}
