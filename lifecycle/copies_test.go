package lifecycle

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// checkCopies fails when the per-skill lists (copies.go) miss a body the
// full walks they replace would have found: bySkill and nlive exact, open
// holding every live copy not due as superseded (every live copy without
// cache-aware archiving), holders every live copy with files.
func checkCopies(t *testing.T, e *Engine, where string) {
	t.Helper()
	bySkill := map[string][]int{}
	nlive := map[string]int{}
	for i, b := range e.bodies {
		if e.byID[b.ID] != i {
			t.Fatalf("%s: byID[%q] = %d, want %d", where, b.ID, e.byID[b.ID], i)
		}
		bySkill[b.Skill] = append(bySkill[b.Skill], i)
		if b.Archived {
			continue
		}
		nlive[b.Skill]++
		if (!e.cacheAware() || !supersededDue(b)) && !slices.Contains(e.open[b.Skill], i) {
			t.Fatalf("%s: live body %d (%s, due %+v) is not in the open list %v", where, i, b.ID, b.Due, e.open[b.Skill])
		}
		if len(b.Resources) > 0 && !slices.Contains(e.holders[b.Skill], i) {
			t.Fatalf("%s: live body %d (%s) holds files but is not in the holders %v", where, i, b.ID, e.holders[b.Skill])
		}
	}
	for skill, list := range bySkill {
		if !slices.Equal(e.bySkill[skill], list) {
			t.Fatalf("%s: bySkill[%s] = %v, want %v", where, skill, e.bySkill[skill], list)
		}
	}
	for skill, n := range e.nlive {
		if n != nlive[skill] {
			t.Fatalf("%s: nlive[%s] = %d, want %d", where, skill, n, nlive[skill])
		}
	}
	for skill, list := range e.open {
		for _, i := range list {
			if i < 0 || i >= len(e.bodies) || e.bodies[i].Skill != skill {
				t.Fatalf("%s: open[%s] holds %d, not a copy of it", where, skill, i)
			}
		}
	}
}

// TestCopyListsHold drives engines with random events, with bodies
// forgotten, configurations replaced and restores on the way, and checks
// the per-skill lists after every step.
func TestCopyListsHold(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		cat := modelCatalog()
		cfg := randomConfig(r)
		e := New(cat, cfg)
		e.setRegistry(testRegistry)
		var recs []Record
		nLoads, nReq := 0, 0
		for step := range 40 + r.Intn(60) {
			where := fmt.Sprintf("seed %d step %d", seed, step)
			switch k := r.Intn(40); {
			case k == 0 && len(e.bodies) > 0:
				recs = append(recs, e.onForget(e.bodies[r.Intn(len(e.bodies))].ID)...)
			case k == 1:
				c := randomConfig(r)
				e.setConfig(c)
			case k == 2:
				e = New(cat, cfg)
				e.setRegistry(testRegistry)
				e.onRestore(roundTrip(t, recs))
			default:
				ev := randomEvent(r, &nLoads)
				if ev.Type == EvRequest {
					nReq++
					ev.Request = fillRequest(r, e, nReq)
				}
				ds, err := e.Apply(ev)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				recs = append(recs, ds...)
			}
			checkCopies(t, e, where)
		}
	}
}
