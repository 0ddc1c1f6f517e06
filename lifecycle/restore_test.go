package lifecycle

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

var promptWords = []string{"explore", "data", "plot", "chart", "model", "fit", "deploy", "release",
	"triage", "route", "the", "please", "now", "again", "it", "ok", "review"}

var skillNames = []string{"triage", "eda", "model", "plot", "ship", "ghost"} // ghost is not installed

func randomConfig(r *rand.Rand) rules.Config {
	c := rules.Default()
	c.TopK = r.Intn(4)
	c.RelativeScore = []float64{0, 0.3, 0.5, 1}[r.Intn(4)]
	c.MinSignal = []float64{0, 2, 10}[r.Intn(3)]
	c.MinKeep = r.Intn(4)
	c.MaxKeep = r.Intn(5)
	c.ProtectCallers = r.Intn(2) == 0
	c.ProtectLoader = r.Intn(2) == 0
	c.EvictOnSkillLoad = r.Intn(4) != 0
	c.SkipOnShortPrompts = r.Intn(3) != 0
	c.Enabled = r.Intn(6) != 0
	c.PinEntrySkill = r.Intn(3) != 0
	if r.Intn(3) == 0 {
		c.Pinned = []string{skillNames[r.Intn(len(skillNames))]}
	}
	if r.Intn(3) == 0 {
		c.HelperSkills = []string{skillNames[r.Intn(len(skillNames))]}
	}
	if r.Intn(3) == 0 {
		c.Rules = []rules.Rule{{SkillName: skillNames[r.Intn(len(skillNames))], Keywords: []string{"plot", "again"}, Weight: 1}}
	}
	if r.Intn(3) != 0 {
		c.CacheAware.Enabled = true
		c.CacheAware.HorizonTurns = r.Intn(3)
		c.CacheAware.HorizonRequests = []int{0, 0, 3}[r.Intn(3)]
		c.CacheAware.MaxRemainingRequests = []int{0, 10, 40}[r.Intn(3)]
		c.CacheAware.MaxDueShare = []float64{0.05, 0.15, 1000}[r.Intn(3)]
		c.CacheAware.BoundMinChars = []float64{0, 0, 15000}[r.Intn(3)]
		c.CacheAware.ComebackBase = []float64{0, 0.25}[r.Intn(2)]
		c.CacheAware.ReleaseRoutedEntry = r.Intn(3) != 0
		c.CacheAware.ComebackLikely = []float64{0, 0.6, 1}[r.Intn(3)]
		c.CacheAware.ColdConfidence = []float64{0.5, 1}[r.Intn(2)]
		c.CacheAware.HorizonWarm = r.Intn(2) == 0
	} else {
		c.CacheAware.Enabled = false // relevance-only
	}
	if r.Intn(3) != 0 {
		c.Models = json.RawMessage(fmt.Sprintf(tiersJSON, []string{"allow-downgrade", "keep", "always"}[r.Intn(3)]))
	}
	return c
}

var modelIDs = []string{"small-m", "mid-m", "big-m", "user-m"}

func randomEvent(r *rand.Rand, nLoads *int) Event {
	switch k := r.Intn(20); {
	case k < 5:
		n := 1 + r.Intn(7)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = promptWords[r.Intn(len(promptWords))]
		}
		return Event{Type: EvPrompt, Text: strings.Join(ws, " ")}
	case k < 11:
		*nLoads++
		if r.Intn(4) == 0 {
			// A file of a skill's folder read (a repeated id now and then).
			id := fmt.Sprintf("res-%d", *nLoads)
			if r.Intn(10) == 0 {
				id = fmt.Sprintf("call-%d", 1+r.Intn(*nLoads))
			}
			return Event{Type: EvResource, Resource: &Resource{ID: id, Skill: skillNames[r.Intn(len(skillNames))], Path: "references/x.md", Size: int64(r.Intn(5000))}}
		}
		id := fmt.Sprintf("call-%d", *nLoads)
		if r.Intn(10) == 0 && *nLoads > 1 {
			id = fmt.Sprintf("call-%d", 1+r.Intn(*nLoads-1)) // a repeated id
		}
		kind := []LoadKind{ByTool, ByRead, ByCommand}[r.Intn(3)]
		return Event{Type: EvLoad, Load: &Load{ID: id, Skill: skillNames[r.Intn(len(skillNames))], Size: int64(r.Intn(5000)), Kind: kind, Hash: fmt.Sprint(r.Intn(3))}}
	case k < 13:
		return Event{Type: EvRunStart}
	case k < 15:
		return Event{Type: EvRunEnd}
	case k < 16:
		return Event{Type: EvPin, Skill: skillNames[r.Intn(len(skillNames))]}
	case k < 17:
		return Event{Type: EvUnpin, Skill: skillNames[r.Intn(len(skillNames))]}
	case k < 18:
		return Event{Type: EvEnable, On: r.Intn(3) != 0}
	case k < 19:
		switch r.Intn(4) {
		case 0:
			sl := sel(modelIDs[r.Intn(len(modelIDs))], "")
			return Event{Type: EvModelSelected, Selection: &sl}
		case 1:
			return Event{Type: EvModelFailed, ModelRef: &models.ModelRef{Provider: "p", ID: modelIDs[r.Intn(len(modelIDs))]}, Text: "refused"}
		case 2:
			return Event{Type: EvModelReset}
		default:
			names := make([]string, 1+r.Intn(3))
			for i := range names {
				names[i] = skillNames[r.Intn(len(skillNames))]
			}
			return loadsEvent(nLoads, names)
		}
	default:
		return Event{Type: EvRequest, Request: &Request{SincePrevious: 0}}
	}
}

// fillRequest lays out the live bodies of e in a request (each body's
// size, in load order, after a 200-unit header, each followed by most of
// the files read with it, some left out as if compacted away), with a
// random gap since the previous request.
func fillRequest(r *rand.Rand, e *Engine, n int) *Request {
	req := &Request{Number: n, SincePrevious: []time.Duration{0, 5 * time.Second, 10 * time.Minute}[r.Intn(3)],
		ModelChanged: r.Intn(10) == 0}
	off := int64(200)
	for _, b := range e.Bodies() {
		if r.Intn(15) == 0 {
			continue
		}
		size := b.Size
		if b.Archived {
			size = int64(len(b.Placeholder))
		}
		req.Bodies = append(req.Bodies, BodyPosition{ID: b.ID, Offset: off, Size: size})
		off += size + int64(r.Intn(3000))
		// The files read with the body follow it (the bound counts them).
		for _, f := range b.Resources {
			if r.Intn(4) == 0 {
				continue
			}
			fs := f.Size
			if b.Archived {
				fs = int64(len(rules.ResourcePlaceholder(f.Skill, f.Path)))
			}
			req.Bodies = append(req.Bodies, BodyPosition{ID: f.ID, Offset: off, Size: fs})
			off += fs + int64(r.Intn(500))
		}
	}
	req.Total = off
	switch r.Intn(4) {
	case 0, 1:
		req.Previous = off - int64(r.Intn(2000))
	case 2:
		// Only the last body is new (a load just made).
		if len(req.Bodies) > 0 {
			req.Previous = req.Bodies[len(req.Bodies)-1].Offset
		}
	}
	if r.Intn(8) == 0 && off > 0 {
		req.ChangedFrom = 1 + r.Int63n(off)
	}
	return req
}

// roundTrip stores records as JSON lines, as a host would, and reads them
// back.
func roundTrip(t *testing.T, recs []Record) []Record {
	t.Helper()
	var out []Record
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Record
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		out = append(out, back)
	}
	return out
}

// TestRestoreProperty drives engines with random event sequences and checks
// that, at every step, an engine restored from the records so far has
// exactly the live engine's state; and that, from a point between runs, a
// restored engine fed the rest of the events ends where the live one does.
func TestRestoreProperty(t *testing.T) {
	seen := map[string]int{} // decision kinds met, so the test is known to cover them
	defer func() {
		for _, k := range []string{"due", "undue", "archive cache-cold", "archive horizon", "archive prefix-broken", "archive not-in-request", "archive pays", "archive context-bound", "due routed", "undue entry", "model", "model-state"} {
			if seen[k] == 0 {
				t.Errorf("no %s decision in any sequence", k)
			}
		}
	}()
	for seed := int64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		cat := modelCatalog()
		cat.Skills[0].Role = ""
		if r.Intn(2) == 0 {
			cat.Skills[0].Role = skills.RoleEntry
		} else {
			cat.InferredEntry = "triage"
		}
		cfg := randomConfig(r)
		n := 20 + r.Intn(60)
		nLoads := 0
		events := make([]Event, n)
		for i := range events {
			events[i] = randomEvent(r, &nLoads)
		}

		live := New(cat, cfg)
		live.setRegistry(testRegistry)
		var recs []Record
		forkAt := r.Intn(n)
		var fork *Engine
		nReq := 0
		for i, ev := range events {
			if ev.Type == EvRequest {
				nReq++
				ev.Request = fillRequest(r, live, nReq)
				events[i] = ev
			}
			ds, err := live.Apply(ev)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			recs = append(recs, ds...)
			for _, d := range ds {
				k := string(d.Action)
				if d.Timing != nil {
					k += " " + string(d.Timing.Code)
				}
				switch {
				case d.Action == ActUndue && d.Reason != nil && d.Reason.Code == rules.KeepEntry:
					k += " entry"
				case d.Action == ActDue && d.Reason != nil && d.Reason.Code == rules.ArchiveRouted:
					k += " routed"
				}
				seen[k]++
			}
			restored := New(cat, cfg)
			restored.setRegistry(testRegistry)
			if probs := restored.onRestore(roundTrip(t, recs)); len(probs) != 0 {
				t.Fatalf("seed %d step %d: restore problems %v", seed, i, probs)
			}
			if d := cmp.Diff(live.State(), restored.State()); d != "" {
				t.Fatalf("seed %d step %d (%+v): restored state differs (-live +restored):\n%s", seed, i, ev, d)
			}
			if d := cmp.Diff(live.Archived(), restored.Archived()); d != "" {
				t.Fatalf("seed %d step %d: Archived differs:\n%s", seed, i, d)
			}
			if fork != nil {
				if _, err := fork.Apply(ev); err != nil {
					t.Fatal(err)
				}
			}
			if fork == nil && i >= forkAt && !live.InRun() {
				fork = restored
				fork.setRequestCount(nReq)
			}
		}
		if fork != nil {
			if d := cmp.Diff(live.State(), fork.State()); d != "" {
				t.Fatalf("seed %d: an engine restored at a run boundary and driven on differs (-live +fork):\n%s", seed, d)
			}
		}
	}
}

// TestRestoreReplacesState checks that Restore on a used engine starts
// from scratch (re-navigation to an earlier point of the session tree).
func TestRestoreReplacesState(t *testing.T) {
	e := New(testCatalog(), cfg(nil))
	recs := drive(t, e, seq(runOf(load("s1", "ship")), runOf(load("m1", "model"))))
	early := New(testCatalog(), cfg(nil))
	drive(t, early, runOf(load("s1", "ship")))
	// Restore the first run's records into the engine that saw both runs.
	e.onRestore(recs[:2])
	if d := cmp.Diff(early.State(), e.State()); d != "" {
		t.Errorf("state after re-navigation (-want +got):\n%s", d)
	}
	if e.InRun() {
		t.Errorf("restore must leave no run in progress")
	}
}

// FuzzRestore feeds Restore arbitrary JSON lines as records, then drives
// the engine: nothing may panic, and Archived must agree with Bodies.
func FuzzRestore(f *testing.F) {
	f.Add([]byte(`{"v":1,"action":"load","id":"a","skill":"eda","run":1}` + "\n" + `{"v":1,"action":"archive","id":"a"}`))
	f.Add([]byte(`{"v":1,"action":"topic","topic":[]}` + "\n" + `{"v":9,"action":"enabled"}`))
	f.Add([]byte(`{"v":1,"action":"cache-lifetime","cacheLifetime":{"warmUpTo":-5,"coldFrom":360000000000,"reports":true}}` + "\n" + `{"v":1,"action":"cache-lifetime"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []Record
		for _, line := range strings.Split(string(data), "\n") {
			var r Record
			if json.Unmarshal([]byte(line), &r) == nil {
				recs = append(recs, r)
			}
		}
		e := New(testCatalog(), rules.Default())
		e.onRestore(recs)
		drive(t, e, seq(runOf(load("x1", "eda"), load("x2", "ship")), s(prompt("deploy the release now"), pin("eda"))))
		arch := e.Archived()
		for _, b := range e.Bodies() {
			if b.Archived != (arch[b.ID] != "") {
				t.Fatalf("Archived and Bodies disagree on %q", b.ID)
			}
		}
	})
}
