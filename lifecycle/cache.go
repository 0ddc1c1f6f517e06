package lifecycle

import (
	"fmt"
	"math"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// onRequest is called before each model request, with what the host
// knows of it. It decides which bodies due for archive are archived from
// this request on (rules.PlanArchives under cacheAware; all of them at once
// when cacheAware is off, the relevance-only behaviour); the others stay
// due, and Deferred says why. The host then replaces the bodies listed by
// Archived.
func (e *Engine) onRequest(r Request) []Decision {
	var ds []Decision
	if was := e.life; e.learn(r) && e.life != was {
		// Recorded, so that a restart (a resume, Pi run once per turn)
		// keeps what was learned.
		l := e.life
		ds = append(ds, Decision{V: RecordVersion, Action: ActCacheLifetime, CacheLifetime: &l})
	}
	now := e.beforeRequest(r)
	e.remember(r, now)
	return append(ds, now...)
}

// lastRequest is what the engine keeps of the previous request to read
// the usage the provider reports for it.
type lastRequest struct {
	// judged says the request can teach the lifetime: its pause is known
	// and no flag already said whether the cache was warm.
	judged bool
	pause  time.Duration
	ttl    time.Duration
	// expect is the share of the request a warm cache served: the part
	// that was in the request before and unchanged.
	expect float64
	total  int64
}

// learn reads the usage the host reports for the previous request
// (Request.PreviousUsage) into what the session knows of the lifetime;
// false when there was none, or nothing uses it (cacheAware off, or
// learnFromUsage off).
func (e *Engine) learn(r Request) bool {
	if r.PreviousUsage == nil || !e.cfg.CacheAware.Enabled || !e.cfg.CacheAware.LearnFromUsage {
		return false
	}
	u := *r.PreviousUsage
	if !e.last.judged {
		if u.CacheRead > 0 {
			e.life.Reports = true
		}
		return true
	}
	e.life.Observe(u, e.last.expect, e.last.pause, e.last.ttl)
	return true
}

// previousSize is the size of the request before r, where what r adds
// begins: the host's word (Request.Previous), else the engine's own note
// of the previous request's total (0: unknown).
func (e *Engine) previousSize(r Request) int64 {
	if r.Previous > 0 {
		return r.Previous
	}
	return e.last.total
}

// remember keeps what the usage of r will be read against: the part of r
// before the first change (the host's ChangedFrom, or a body archived
// now) that the previous request also held.
func (e *Engine) remember(r Request, ds []Decision) {
	prev := e.previousSize(r)
	ttl := e.cfg.CacheAware.TTLFor(r.Cache)
	e.last = lastRequest{pause: pauseOf(r), ttl: ttl, total: r.Total}
	// A cache kept warm says nothing of the lifetime.
	if e.last.pause <= 0 || r.Total <= 0 || prev <= 0 || r.CacheCold || r.CacheStopped || keptWarm(r, ttl) || r.ModelChanged {
		return
	}
	cut := min(r.Total, prev)
	if r.ChangedFrom > 0 {
		cut = min(cut, r.ChangedFrom)
	}
	var now map[string]bool // the bodies archived now
	for _, d := range ds {
		if d.Action == ActArchive {
			if now == nil {
				now = map[string]bool{}
			}
			now[d.ID] = true
		}
	}
	switch {
	case now != nil && r.Index != nil:
		for id := range now {
			if k, ok := r.Index[id]; ok {
				cut = min(cut, r.Bodies[k].Offset)
			}
		}
	case now != nil:
		for _, p := range r.Bodies {
			if now[p.ID] {
				cut = min(cut, p.Offset)
			}
		}
	}
	e.last.judged, e.last.expect = true, float64(cut)/float64(r.Total)
}

func (e *Engine) beforeRequest(r Request) []Decision {
	if r.Number > 0 {
		e.requests = r.Number
	} else {
		e.requests++
	}
	e.deferred = nil
	due := e.dueBodies()
	if len(due) == 0 {
		return nil
	}
	if !e.Enabled() {
		return e.undueAll(rules.Reason{Code: rules.KeepDisabled, Text: "archiving is switched off"})
	}
	var ds []Decision
	if !e.cfg.CacheAware.Enabled {
		for _, i := range due {
			ds = append(ds, e.archiveDue(i, rules.Timing{ID: e.bodies[i].ID, Archive: true, Code: rules.TimeNow,
				Text: "archived at once: cacheAware is off (relevance-only)"}))
		}
		return ds
	}
	c, idx, gone, note := e.cacheCase(r, due)
	for _, i := range gone {
		ds = append(ds, e.archiveDue(i, rules.Timing{ID: e.bodies[i].ID, Archive: true, Code: rules.TimeGone,
			Text: "archived now: the body is not in the request (compacted away), so nothing is rewritten"}))
	}
	for _, i := range idx.pinned {
		ds = append(ds, e.undue(i, rules.Reason{Code: rules.KeepPinned, Text: "pinned since it became due"}))
	}
	for k, t := range withNote(rules.PlanArchives(c), note) {
		i := idx.cand[k]
		switch {
		case t.Archive:
			ds = append(ds, e.archiveDue(i, t))
		case c.Candidates[k].Routed:
			// Weighed once: kept now, the entry skill stays pinned.
			ds = append(ds, e.undue(i, rules.Reason{Code: rules.KeepEntry, Text: t.Text}))
		default:
			e.deferred = append(e.deferred, t)
		}
	}
	return ds
}

// dueIndex maps PlanArchives' candidates back to bodies.
type dueIndex struct {
	cand   []int // body index of each candidate
	pinned []int // due bodies pinned since (no longer due)
}

// withNote adds to each verdict's text where its prices and lifetime came
// from, when the host's model gave them (note not "").
func withNote(ts []rules.Timing, note string) []rules.Timing {
	if note != "" {
		for i := range ts {
			ts[i].Text += " [" + note + "]"
		}
	}
	return ts
}

// pauseOf is how long the cache has gone untouched before r: since the
// host's last refresh when it refreshed during the pause, else since the
// previous request.
func pauseOf(r Request) time.Duration {
	if (r.CacheWarm || r.CacheStopped) && r.SinceWarmed > 0 {
		return r.SinceWarmed
	}
	return r.SincePrevious
}

// keptWarm says the host's refreshes kept the cache warm through the
// pause before r: it refreshed it, and not longer ago than the lifetime
// ttl.
func keptWarm(r Request, ttl time.Duration) bool {
	return r.CacheWarm && !(ttl > 0 && r.SinceWarmed > ttl)
}

// joinNote adds b to the note a of a request's verdicts.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// cacheCase builds the timing question for the due bodies of one request,
// under the model's cache prices and lifetime when the host gave them
// (note says which).
func (e *Engine) cacheCase(r Request, due []int) (rules.CacheCase, dueIndex, []int, string) {
	cfg, note := e.cfg.CacheAware.ForModel(r.Cache)
	c := rules.CacheCase{Config: cfg, Total: r.Total, Previous: e.previousSize(r), BreakAt: -1, Requests: e.requests, CharsPerUnit: r.CharsPerUnit}
	if r.Cache != nil {
		c.UnitUSD = r.Cache.UnitUSD // for the reasons' figures
	}
	if r.ChangedFrom > 0 {
		c.BreakAt = r.ChangedFrom
	}
	switch ttl := cfg.TTL(); {
	case r.CacheCold:
		c.Cold, c.ColdWhy = true, "the host reports it cold"
	case r.ModelChanged:
		c.Cold, c.ColdWhy = true, "the model changed since the previous request"
	case r.CacheStopped:
		// The host stopped refreshing: the lifetime decides, with no
		// hedge for a host that keeps the cache longer.
		if pause := pauseOf(r); ttl > 0 && pause > ttl {
			c.Cold, c.ColdWhy = true, fmt.Sprintf("the host stopped keeping it warm, and %s passed, more than the cache lifetime of %gs", pause.Round(1e9), cfg.CacheTTLSeconds)
		}
	case keptWarm(r, ttl):
		// The host refreshed the cache during the pause: it is warm
		// whatever the lifetime says.
	case ttl > 0 && pauseOf(r) > ttl:
		pause := pauseOf(r)
		known, cold, why := false, false, ""
		if cfg.LearnFromUsage {
			known, cold, why = e.life.Judge(pause, ttl)
		}
		since := "since the previous request"
		if r.CacheWarm {
			since = "since the host last refreshed the cache"
		}
		switch {
		case !known:
			c.ColdChance, c.ColdWhy = cfg.ColdConfidence, fmt.Sprintf("%s %s, more than the cache lifetime of %gs", pause.Round(1e9), since, cfg.CacheTTLSeconds)
		case cold:
			c.Cold, c.ColdWhy = true, why
		default:
			note = joinNote(note, why)
		}
	}
	pos := e.positions(r, due)
	turn := e.run
	if !e.inRun {
		turn = e.run + 1
	}
	cpu := r.CharsPerUnit
	if cpu <= 0 {
		cpu = 1
	}
	var idx dueIndex
	var gone []int
	back := map[string]int{} // per skill, its first copy archived for good (comeback)
	for _, i := range due {
		b := e.bodies[i]
		code, pin := b.Due.Reason.Code, e.PinOf(b.Skill)
		routed := code == rules.ArchiveRouted
		if code != rules.ArchiveSuperseded && pin != rules.NotPinned && !(routed && pin == rules.PinEntry) {
			idx.pinned = append(idx.pinned, i)
			continue
		}
		cd := rules.Candidate{ID: b.ID, Placeholder: inUnits(rules.Placeholder(b.Skill), cpu), Routed: routed,
			Overdue: !routed && rules.Overdue(cfg, b.Due.Run, turn, e.requests-b.Due.Request-1), Comeback: e.comeback(i, turn, back)}
		if p, ok := pos[b.ID]; ok {
			// The timing weighs the body alone: the files that go with
			// it are a bonus it does not count (docs/cache-aware.md, "A
			// skill's files": counting them tipped archives that came
			// back). The context bound counts them (Files): they are
			// context held as long as the body is.
			cd.Known, cd.Offset, cd.Size = true, p.Offset, p.Size
			cd.Files = filesHeld(b.Resources, pos, cpu)
		} else if len(r.Bodies) > 0 {
			gone = append(gone, i)
			continue
		}
		c.Candidates = append(c.Candidates, cd)
		idx.cand = append(idx.cand, i)
	}
	return c, idx, gone, note
}

// positions are where r has the due bodies and their files (the last
// position of an id that appears twice).
func (e *Engine) positions(r Request, due []int) map[string]BodyPosition {
	want := make(map[string]bool, len(due))
	for _, i := range due {
		b := &e.bodies[i]
		want[b.ID] = true
		for _, f := range b.Resources {
			want[f.ID] = true
		}
	}
	pos := make(map[string]BodyPosition, len(want))
	if r.Index != nil {
		for id := range want {
			if k, ok := r.Index[id]; ok {
				pos[id] = r.Bodies[k]
			}
		}
		return pos
	}
	for _, p := range r.Bodies {
		if want[p.ID] {
			pos[p.ID] = p
		}
	}
	return pos
}

// filesHeld is what the files rs that go with a body free in the request
// (their sizes there minus their placeholders), for the context bound.
func filesHeld(rs []Resource, pos map[string]BodyPosition, cpu float64) int64 {
	var n int64
	for _, r := range rs {
		if p, ok := pos[r.ID]; ok {
			n += max(p.Size-inUnits(rules.ResourcePlaceholder(r.Skill, r.Path), cpu), 0)
		}
	}
	return n
}

// inUnits is the size of text s in the request's unit, cpu characters
// each, rounded up.
func inUnits(s string, cpu float64) int64 {
	return int64(math.Ceil(float64(len(s)) / cpu))
}

// comeback gathers what rules.Comeback weighs for body i, due for
// archive in user turn turn. back caches, per skill, the index of its
// first copy archived other than as superseded (-1: none).
func (e *Engine) comeback(i, turn int, back map[string]int) float64 {
	b := e.bodies[i]
	f := rules.ComebackFacts{Copies: len(e.bySkill[b.Skill]), Helper: e.HelperOf(b.Skill) != "", SameRun: b.Run == turn}
	if b.Due != nil {
		f.Due = b.Due.Reason.Code
	}
	if f.Due != rules.ArchiveSuperseded && f.Due != rules.ArchiveRouted {
		first, ok := back[b.Skill]
		if !ok {
			first = -1
			for _, j := range e.bySkill[b.Skill] {
				if o := e.bodies[j]; o.Archived && (o.Reason == nil || o.Reason.Code != rules.ArchiveSuperseded) {
					first = j
					break
				}
			}
			back[b.Skill] = first
		}
		f.ArchivedBefore = first >= 0 && first < i
	}
	return rules.Comeback(e.cfg.CacheAware, f)
}

// archiveDue archives a due body at this request, with the timing verdict.
func (e *Engine) archiveDue(i int, t rules.Timing) Decision {
	r := e.bodies[i].Due.Reason
	d := e.archive(i, r)
	tt := t
	e.bodies[i].Timing = &tt
	d.Timing = &tt
	d.Request = e.requests
	return d
}

// CacheLifetime is what the session has learned of the provider's cache
// lifetime from its usage (cacheAware.learnFromUsage).
func (e *Engine) CacheLifetime() rules.Lifetime { return e.life }

// Deferred returns, for each body the last request kept although it is
// due for archive, why: "kept for now: archiving now would cost X and
// save Y…" with the figures (rules.Timing).
func (e *Engine) Deferred() []rules.Timing {
	return append([]rules.Timing(nil), e.deferred...)
}

// PlanRequest says what BeforeRequest would decide for r, without changing
// anything: the timing verdict of each body due for archive (for
// explain).
func (e *Engine) PlanRequest(r Request) []rules.Timing {
	saved := e.requests
	defer func() { e.requests = saved }()
	if r.Number > 0 {
		e.requests = r.Number
	} else {
		e.requests++
	}
	due := e.dueBodies()
	if len(due) == 0 || !e.cfg.CacheAware.Enabled || !e.Enabled() {
		return nil
	}
	c, _, _, note := e.cacheCase(r, due)
	return withNote(rules.PlanArchives(c), note)
}

// setRequestCount tells the engine how many model requests the session
// (branch) has made so far, after a Restore: the records only hold the
// count as of the last decision that noted it. A host that passes
// Request.Number with every request needs it only for the bodies marked
// due before the next request.
func (e *Engine) setRequestCount(n int) {
	if n >= 0 {
		e.requests = n
	}
}

// RequestCount returns the number of model requests the engine knows of.
func (e *Engine) RequestCount() int { return e.requests }

// onRevive takes back body id, due for archive but still whole in the
// context, because the agent loaded its skill again (a host that answers
// a repeated load with "already loaded"): the load shows the agent needs
// it. The mark is dropped (an undue record with reason loaded-again). A
// body that is archived, not due, or due as superseded by a newer copy
// is left alone, and nothing is decided.
func (e *Engine) onRevive(id string) []Decision {
	i, ok := e.byID[id]
	if !ok {
		return nil
	}
	b := e.bodies[i]
	if b.Archived || b.Due == nil || b.Due.Reason.Code == rules.ArchiveSuperseded {
		return nil
	}
	return []Decision{e.undue(i, rules.Reason{Code: rules.KeepReloaded, Text: fmt.Sprintf("skill %q was loaded again while this copy was still in the context: it is kept", b.Skill)})}
}
