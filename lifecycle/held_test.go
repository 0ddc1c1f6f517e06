package lifecycle

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequestIndexDecidesAsBodies: a request that gives the index of its
// bodies (Request.Index) is decided as the same request without it,
// whose bodies the engine walks: the same decisions and the same note of
// the request for the usage the next reports, event by event, and the
// same state.
func TestRequestIndexDecidesAsBodies(t *testing.T) {
	indexed := 0
	for seed := int64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		cfg := randomConfig(r)
		a, b := New(modelCatalog(), cfg), New(modelCatalog(), cfg)
		a.setRegistry(testRegistry)
		b.setRegistry(testRegistry)
		nLoads, nReq := 0, 0
		for step := range 20 + r.Intn(80) {
			ev := randomEvent(r, &nLoads)
			evb := ev
			if ev.Type == EvRequest {
				nReq++
				ev.Request = fillRequest(r, a, nReq)
				req := *ev.Request
				req.Index = map[string]int{}
				for k, p := range req.Bodies {
					req.Index[p.ID] = k
				}
				evb.Request = &req
				indexed++
			}
			da, errA := a.Apply(ev)
			db, errB := b.Apply(evb)
			if diff := cmp.Diff([]any{da, errA, a.last}, []any{db, errB, b.last}, cmp.AllowUnexported(lastRequest{})); diff != "" {
				t.Fatalf("seed %d step %d (%s): decisions differ (-bodies +index):\n%s", seed, step, ev.Type, diff)
			}
		}
		if diff := cmp.Diff(a.State(), b.State()); diff != "" {
			t.Fatalf("seed %d: states differ:\n%s", seed, diff)
		}
	}
	if indexed < 400 {
		t.Errorf("only %d requests: the test checks too little", indexed)
	}
}
