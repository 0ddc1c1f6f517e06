package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func TestSkillLoadDedupe(t *testing.T) {
	for _, tt := range []struct {
		config      string
		wantAlready bool
	}{
		{`{}`, rules.DefaultDedupe == rules.DedupeAlreadyLoaded},
		{`{"dedupe": "already-loaded"}`, true},
		{`{"dedupe": "archive-older"}`, false},
	} {
		h := packServer(t, tt.config)
		var first, second SkillLoadResult
		if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "add-go-test", CallID: "c1"}, &first); err != nil || !first.Found || first.AlreadyLoaded {
			t.Fatalf("%s: first load: %+v %v", tt.config, first, err)
		}
		recs := waitRecords(t, h.rec, 1)
		// The next request carries the result.
		var br BeforeRequestResult
		if err := h.call(MethodBeforeRequest, BeforeRequestParams{Loads: []LoadRef{{ID: "c1", Skill: "add-go-test", Kind: "tool", Size: int64(len(first.Text)), Hash: first.Hash}}}, &br); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, h.rec.records(t)...)
		if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "add-go-test", CallID: "c2"}, &second); err != nil {
			t.Fatal(err)
		}
		if second.AlreadyLoaded != tt.wantAlready {
			t.Errorf("%s: second load AlreadyLoaded = %v, want %v", tt.config, second.AlreadyLoaded, tt.wantAlready)
		}
		if tt.wantAlready {
			if !strings.HasPrefix(second.Text, `Skill "add-go-test" is already loaded`) || second.Hash != first.Hash {
				t.Errorf("%s: already-loaded answer %+v", tt.config, second)
			}
			if got := h.rec.records(t); len(got) != 0 {
				t.Errorf("%s: already-loaded recorded %v", tt.config, actions(got))
			}
		} else {
			if second.Text != first.Text {
				t.Errorf("%s: the body was not delivered again", tt.config)
			}
			got := waitRecords(t, h.rec, 2)
			// Archived, or (cache-aware archiving, the default) due for archive.
			if a := actions(got); !contains(a, "archive:add-go-test") && !contains(a, "due:add-go-test") {
				t.Errorf("%s: the older copy was not dropped: %v (first: %v)", tt.config, a, actions(recs))
			}
		}
	}
}

// TestSkillLoadLostResult (issue 27, item 2): the sidecar records a load
// at skill/load, before the result reaches the host. When it never does
// (the sidecar died, answered late, junk on the stream), the next request
// does not carry it: the load is forgotten (a forget record), and the
// model's retried call gets the body, not "already loaded". The same holds
// for a sidecar restored from records that hold the load.
func TestSkillLoadLostResult(t *testing.T) {
	load := func(h *harness, id string) SkillLoadResult {
		t.Helper()
		var res SkillLoadResult
		if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "add-go-test", CallID: id}, &res); err != nil || !res.Found {
			t.Fatalf("skill/load %s: %+v %v", id, res, err)
		}
		return res
	}
	request := func(h *harness, loads ...LoadRef) {
		t.Helper()
		var br BeforeRequestResult
		if err := h.call(MethodBeforeRequest, BeforeRequestParams{Loads: loads}, &br); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("same sidecar", func(t *testing.T) {
		h := packServer(t, `{"dedupe": "already-loaded"}`)
		first := load(h, "c1")
		if first.AlreadyLoaded {
			t.Fatal("first load answered already loaded")
		}
		// Retried before any request: the first result is not above.
		if again := load(h, "c2"); again.AlreadyLoaded {
			t.Fatalf("retry before a request: %q", again.Text)
		}
		waitRecords(t, h.rec, 2)
		h.rec.records(t)
		// The request carries only the retry's result: c1 never arrived.
		request(h, LoadRef{ID: "c2", Skill: "add-go-test", Kind: "tool", Size: int64(len(first.Text)), Hash: first.Hash})
		got := actions(waitRecords(t, h.rec, 1))
		if !contains(got, "forget:add-go-test") {
			t.Errorf("the lost load was not forgotten: %v", got)
		}
		// Now the body is above: a third call is answered already loaded.
		if third := load(h, "c3"); !third.AlreadyLoaded {
			t.Errorf("third load delivered the body again although the last request carried it")
		}
	})
	t.Run("restored sidecar", func(t *testing.T) {
		h := packServer(t, `{"dedupe": "already-loaded"}`)
		load(h, "c1")
		recs := waitRecords(t, h.rec, 1)
		// The sidecar dies before answering; a new one is restored from the
		// records the host appended.
		h2 := packServer(t, `{"dedupe": "already-loaded"}`)
		raw := make([]json.RawMessage, len(recs))
		for i, r := range recs {
			raw[i], _ = json.Marshal(r)
		}
		var rr SessionRestoreResult
		if err := h2.call(MethodSessionRestore, SessionRestoreParams{Records: raw}, &rr); err != nil || len(rr.Problems) != 0 {
			t.Fatalf("restore: %+v %v", rr, err)
		}
		if again := load(h2, "c2"); again.AlreadyLoaded {
			t.Fatalf("retry on the restored sidecar: %q", again.Text)
		}
		h2.rec.records(t)
		request(h2, LoadRef{ID: "c2", Skill: "add-go-test", Kind: "tool", Size: 100, Hash: "x"})
		if got := actions(waitRecords(t, h2.rec, 1)); !contains(got, "forget:add-go-test") {
			t.Errorf("the restored load the request does not carry was not forgotten: %v", got)
		}
	})
}
