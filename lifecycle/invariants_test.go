package lifecycle

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// TestEngineInvariants drives engines with the random event sequences of
// TestRestoreProperty and checks, after every event, what must hold
// whatever the configuration:
//   - Archived and Bodies agree, and no body is both archived and due;
//     ArchivedView and the due list kept between events agree with them;
//   - the latest copy of a skill pinned by the user or the configuration
//     is never archived (docs/config.md, pinned; /skills-pin), nor the
//     entry skill's unless it has routed (releaseRoutedEntry);
//   - after a prompt, no more bodies stay than maxKeep allows over the
//     pinned ones and the minKeep most recent;
//   - relevance-only leaves nothing due;
//   - with archiving switched off (/skills-off) nothing more is archived
//     (what was stays: docs/config.md, enabled), and nothing is left due;
//   - every archive decision names a body the engine holds, which is then
//     archived, and carries its reason and placeholder (and, when cache-aware
//     timing decided it, its timing).
func TestEngineInvariants(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		cat := modelCatalog()
		cfg := randomConfig(r)
		e := New(cat, cfg)
		e.setRegistry(testRegistry)
		n := 20 + r.Intn(80)
		nLoads, nReq := 0, 0
		for step := range n {
			ev := randomEvent(r, &nLoads)
			if ev.Type == EvRequest {
				nReq++
				ev.Request = fillRequest(r, e, nReq)
			}
			ds, err := e.Apply(ev)
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			at := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("seed %d step %d (%s): "+format, append([]any{seed, step, ev.Type}, args...)...)
			}
			arch := e.Archived()
			bodies := e.Bodies()
			if step%3 == 2 || step == n-1 {
				// The kept views, taken every few events, are what a
				// walk of every body gives (held.go).
				if diff := cmp.Diff(arch, e.ArchivedView()); diff != "" {
					at("ArchivedView is not Archived (-Archived +view):\n%s", diff)
				}
				var due []int
				for i, b := range bodies {
					if b.Due != nil && !b.Archived {
						due = append(due, i)
					}
				}
				if got := e.dueBodies(); !slices.Equal(got, due) {
					at("dueBodies %v, want %v", got, due)
				}
			}
			latest := map[string]int{}
			for i, b := range bodies {
				if b.Archived != (arch[b.ID] != "") {
					at("Archived and Bodies disagree on %q", b.ID)
				}
				if b.Archived && b.Due != nil {
					at("%q is archived and due", b.ID)
				}
				if !compacted(b) {
					latest[b.Skill] = i
				}
			}
			for skill, i := range latest {
				p := e.PinOf(skill)
				if (p == rules.PinUser || p == rules.PinConfig) && bodies[i].Archived {
					at("the latest copy of pinned skill %q (%s) is archived: %+v", skill, p, bodies[i].Reason)
				}
				if p == rules.PinEntry && bodies[i].Archived && bodies[i].Reason.Code != rules.ArchiveRouted {
					at("the latest copy of the entry skill %q is archived, not as routed: %+v", skill, bodies[i].Reason)
				}
			}
			if ev.Type == EvPrompt && e.Enabled() && e.cfg.MaxKeep > 0 {
				// maxKeep is a hard cap on the bodies that stay, over
				// what is pinned and the minKeep most recent.
				stay, pinned := 0, 0
				for _, b := range bodies {
					if !b.Archived && b.Due == nil {
						stay++
						if e.PinOf(b.Skill) != rules.NotPinned {
							pinned++
						}
					}
				}
				if stay > max(e.cfg.MaxKeep, pinned+e.cfg.MinKeep) {
					at("%d bodies stay after the prompt, over maxKeep %d (pinned %d, minKeep %d)", stay, e.cfg.MaxKeep, pinned, e.cfg.MinKeep)
				}
			}
			if !e.cfg.CacheAware.Enabled {
				for _, b := range bodies {
					if b.Due != nil {
						at("relevance-only, yet %q is due: %+v", b.ID, b.Due.Reason)
					}
				}
			}
			if !e.Enabled() {
				for _, d := range ds {
					if d.Action == ActArchive {
						at("archiving is off but %q was archived", d.ID)
					}
				}
				for _, b := range bodies {
					if b.Due != nil {
						at("archiving is off but %q is due", b.ID)
					}
				}
			}
			byID := map[string]Body{}
			for _, b := range bodies {
				byID[b.ID] = b
			}
			for k, d := range ds {
				if d.Action != ActArchive {
					continue
				}
				b, ok := byID[d.ID]
				if !ok {
					at("archive decision for unknown body %q", d.ID)
				}
				if d.Reason == nil || d.Reason.Text == "" || d.Placeholder == "" {
					at("archive decision %d for %q lacks its reason or placeholder: %+v", k, d.ID, d)
				}
				undone := false
				for _, later := range ds[k+1:] {
					undone = undone || (later.Action == ActUnarchive && later.ID == d.ID)
				}
				if !b.Archived && !undone {
					at("decided to archive %q but it is live", d.ID)
				}
				if e.cfg.CacheAware.Enabled && ev.Type == EvRequest && d.Timing == nil && d.Reason.Code != rules.ArchiveOverMaxKeep {
					at("archive of %q at a request without its timing: %+v", d.ID, d)
				}
			}
		}
	}
}

// TestPinRestoresTheLatestCopy pins a skill whose latest copy the maxKeep
// cap archived while its older copy still waited, superseded, for
// cache-aware timing: the pin brings the latest copy back, and the older
// one stays due and goes as superseded copies do. (Before, a live older
// copy made the pin restore nothing, and once it went the pinned skill had
// no live copy.)
func TestPinRestoresTheLatestCopy(t *testing.T) {
	cfg := rules.Default()
	cfg.CacheAware.Enabled = true
	cfg.MaxKeep, cfg.MinKeep = 1, 0
	cfg.EvictOnSkillLoad = false
	e := New(testCatalog(), cfg)
	ld := func(id, skill, hash string) Event {
		return Event{Type: EvLoad, Load: &Load{ID: id, Skill: skill, Size: 500, Kind: ByTool, Hash: hash}}
	}
	for _, ev := range []Event{
		{Type: EvRunStart}, ld("s1", "ship", "v1"), {Type: EvRunEnd},
		{Type: EvRunStart}, ld("s2", "ship", "v2"), ld("m1", "model", "m"), {Type: EvRunEnd},
		{Type: EvPrompt, Text: "ok"},
	} {
		if _, err := e.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	state := func() map[string]string {
		m := map[string]string{}
		for _, b := range e.Bodies() {
			switch {
			case b.Archived:
				m[b.ID] = "archived"
			case b.Due != nil:
				m[b.ID] = "due " + string(b.Due.Reason.Code)
			default:
				m[b.ID] = "live"
			}
		}
		return m
	}
	before := map[string]string{"s1": "due " + string(rules.ArchiveSuperseded), "s2": "archived", "m1": "live"}
	if d := cmp.Diff(before, state()); d != "" {
		t.Fatalf("before the pin (-want +got):\n%s", d)
	}
	ds, err := e.Apply(Event{Type: EvPin, Skill: "ship"})
	if err != nil {
		t.Fatal(err)
	}
	var restored []string
	for _, d := range ds {
		if d.Action == ActUnarchive {
			restored = append(restored, d.ID)
		}
	}
	if d := cmp.Diff([]string{"s2"}, restored); d != "" {
		t.Errorf("unarchived by the pin (-want +got):\n%s", d)
	}
	after := map[string]string{"s1": "due " + string(rules.ArchiveSuperseded), "s2": "live", "m1": "live"}
	if d := cmp.Diff(after, state()); d != "" {
		t.Errorf("after the pin (-want +got):\n%s", d)
	}
}
