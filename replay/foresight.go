package replay

import (
	"fmt"
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// ForesightName is the name of the foresight strategy.
const ForesightName = "foresight"

// MaxForesightPasses bounds the search's passes over a branch's loads.
const MaxForesightPasses = 3

// ForesightSpec is not a policy but a yardstick: for each session branch
// it searches, knowing the whole branch, for the plan (which body is
// archived from which moment on: a user turn's start, or the point right
// after one of the session's loads) that replay prices lowest, and reports
// that plan's cost. It plays by cfg's rules where they are not about
// timing: a body of a pinned skill (pinned, or the entry skill with
// pinEntrySkill unless cacheAware.releaseRoutedEntry may let it go) is
// archived only once a newer copy of its skill was delivered; with the
// "already-loaded" dedupe, a load whose identical body is visible is
// answered with the note. Reloads cost what replay
// charges any strategy: the comebacks of cfg's relevance rules
// (comebackModel), orphan uses and the agent's own loads.
//
// The search is greedy: per load, in order, the moment (or never) that
// prices lowest with the other loads' moments fixed, repeated until a pass
// changes nothing (at most MaxForesightPasses). It is a plan a policy
// could reach only by knowing the future, not a proof that none does
// better. It replays the branch about loads × (turns + loads) × passes
// times.
func ForesightSpec(w *host.World) StrategySpec {
	cat, cfg := w.Catalog, w.Config
	e := lifecycle.New(cat, cfg)
	pinned := map[string]bool{}
	// The entry skill's body may go once it has routed
	// (cacheAware.releaseRoutedEntry): the plan may then archive it at any
	// moment, a superset of what the engine can do.
	released := cfg.ReleasesRoutedEntry()
	for _, s := range cat.Skills {
		if p := e.PinOf(s.Name); p != rules.NotPinned && !(released && p == rules.PinEntry) {
			pinned[s.Name] = true
		}
	}
	spec := StrategySpec{Name: ForesightName, Bridge: true, Comebacks: comebackModel(cat, cfg, e),
		Helper: func(s string) bool { return e.HelperOf(s) != "" }}
	spec.search = &foresight{pinned: pinned, dedupe: cfg.Dedupe == rules.DedupeAlreadyLoaded, files: cfg.ArchiveResources}
	spec.New = func() Strategy { return spec.search.strategy(nil, nil) }
	return spec
}

// ForesightTimingName is the name of the timing-only foresight strategy.
const ForesightTimingName = "foresight-timing"

// ForesightTimingSpec is ForesightSpec held to the relevance rules: per
// branch it first replays cfg with cacheAware off (relevance-only) and
// notes the moment at which each body was first archived; the plan may
// then archive a body only from that moment on (not from the start of the
// turn it falls in: a body a newer skill supersedes mid-run is not gone
// before that skill is loaded), and never one relevance-only kept. It
// prices what timing alone could gain over relevance-only, the comparison
// of docs/cache-aware.md: a cache-aware policy may archive later, or not
// at all, but not sooner than the rules drop a body, nor what they keep.
func ForesightTimingSpec(w *host.World) StrategySpec {
	spec := ForesightSpec(w)
	spec.Name = ForesightTimingName
	ro := w.Config
	ro.CacheAware.Enabled = false
	rs := EngineSpec("relevance-only", w.WithConfig(ro))
	f := *spec.search
	f.relevance = &rs
	spec.search = &f
	return spec
}

// ForesightPeakName is the name of the timing-only foresight strategy
// held to a peak.
const ForesightPeakName = "foresight-timing-peak"

// ForesightPeakShare is how far above relevance-only's peak request a
// ForesightPeakSpec plan may go: issue 10's limit, 10%.
const ForesightPeakShare = 1.10

// ForesightPeakSpec is ForesightTimingSpec held to a peak as well: no
// request of a session branch may be larger than ForesightPeakShare
// times relevance-only's largest request in that branch. The search
// starts from relevance-only's own moments (within the limit) and only
// takes a later moment, or never, where the plan stays within it. It
// prices what timing alone could gain over relevance-only within issue
// 10's peak limit, per branch (the issue sums the peaks of a set of
// sessions, which allows a little more).
func ForesightPeakSpec(w *host.World) StrategySpec {
	spec := ForesightTimingSpec(w)
	spec.Name = ForesightPeakName
	f := *spec.search
	f.peakShare = ForesightPeakShare
	spec.search = &f
	return spec
}

// foresight is what a ForesightSpec's strategies share.
type foresight struct {
	pinned map[string]bool
	dedupe bool
	// files: the files of a skill's folder go with its body, as the
	// engine ties them (archiveResources).
	files bool
	// relevance, when set, is the relevance-only strategy whose archive
	// moments bound the plan (ForesightTimingSpec).
	relevance *StrategySpec
	// peakShare, when above 0, bounds each request to this multiple of
	// relevance-only's peak, and the search starts from relevance-only's
	// moments (ForesightPeakSpec).
	peakShare float64
}

// archiveMoments follows a strategy and notes the moment at which each
// body was first archived.
type archiveMoments struct {
	Strategy
	at    position
	first map[string]moment
}

func (a *archiveMoments) Observe(ev Event) {
	a.Strategy.Observe(ev)
	a.at.observe(ev.Event)
	if ev.Type == lifecycle.EvRequest {
		for id := range a.Strategy.Archived() {
			if _, ok := a.first[a.at.key(id)]; !ok {
				a.first[a.at.key(id)] = a.at.moment()
			}
		}
	}
}

// open forwards to the followed strategy.
func (a *archiveMoments) open(models []host.HostModel, charsPerToken float64) {
	if o, ok := a.Strategy.(opener); ok {
		o.open(models, charsPerToken)
	}
}

// Compact forwards to the followed strategy.
func (a *archiveMoments) Compact(p host.SessionCompactParams) host.SessionCompactResult {
	if c, ok := a.Strategy.(compactor); ok {
		return c.Compact(p)
	}
	return host.SessionCompactResult{}
}

// Notes forwards to the followed strategy.
func (a *archiveMoments) Notes() map[string]string {
	if n, ok := a.Strategy.(noter); ok {
		return n.Notes()
	}
	return nil
}

// Deduped forwards to the followed strategy.
func (a *archiveMoments) Deduped(id string) bool {
	d, ok := a.Strategy.(deduper)
	return ok && d.Deduped(id)
}

// A moment is a point in a branch that every strategy's replay of it
// passes: the user turn (1-based count of prompts) and how many of the
// session's own loads that turn has made so far. Requests do not serve,
// since a strategy's reloads add requests the others do not make; a
// reload's load does not count either. The plan archives a body from
// the first request at or after its moment.
type moment struct{ turn, loads int }

// before reports whether m comes before o.
func (m moment) before(o moment) bool {
	return m.turn < o.turn || (m.turn == o.turn && m.loads < o.loads)
}

// position follows a replay's moment, and names its loads in a plan. A
// session's own load is named by its tool call id; a reload replay added
// is not, since its id counts the reloads of that one replay, so it is
// named by its skill and the moment it came at, which every replay that
// makes it shares.
type position struct {
	turn, loads int
	reloads     map[string]string // reload id -> its name in a plan
}

func (p *position) observe(ev lifecycle.Event) {
	if ev.Type == lifecycle.EvPrompt {
		p.turn, p.loads = p.turn+1, 0
		return
	}
	ls := loadsOf(ev)
	for _, l := range ls {
		if !isReload(l.ID) {
			p.loads++
		}
	}
	for _, l := range ls {
		if isReload(l.ID) {
			if p.reloads == nil {
				p.reloads = map[string]string{}
			}
			m := p.moment()
			p.reloads[l.ID] = fmt.Sprintf("reload of %s at %d.%d", l.Skill, m.turn, m.loads)
		}
	}
}

func (p position) moment() moment { return moment{max(p.turn, 1), p.loads} }

// key is the plan's name for load (or file) id.
func (p position) key(id string) string {
	if n, ok := p.reloads[id]; ok {
		return n
	}
	return id
}

// loadsOf is the loads an event delivers (none for other events).
func loadsOf(ev lifecycle.Event) []lifecycle.Load {
	switch {
	case ev.Type == lifecycle.EvLoad && ev.Load != nil:
		return []lifecycle.Load{*ev.Load}
	case ev.Type == lifecycle.EvLoads:
		return ev.Loads
	}
	return nil
}

// planLoad is a load the plan can archive, and the moment at which it
// arrived (its own load counted).
type planLoad struct {
	id string
	at moment
}

func (f *foresight) strategy(plan map[string]moment, seen *[]planLoad) *planStrategy {
	return &planStrategy{f: f, plan: plan, seen: seen, moments: []moment{{1, 0}}, skill: map[string]string{}, hash: map[string]string{},
		seq: map[string]int{}, notes: map[string]string{}, files: map[string]planFile{}}
}

// search finds the branch's plan; price replays the branch under a
// strategy and returns its cost (+Inf for a plan out of bounds). Each load
// may be archived from any moment the branch passes after the next load
// or turn start that follows it, or never. allowed, when not nil, also
// bounds each load's moment from below (the one at which relevance-only
// archived it); a load it does not name is never archived. The search
// starts from plan start (nil: nothing archived).
func (f *foresight) search(price func(Strategy) float64, allowed, start map[string]moment) map[string]moment {
	var loads []planLoad
	first := f.strategy(nil, &loads)
	price(first)
	plan := map[string]moment{}
	for id, m := range start {
		plan[id] = m
	}
	best := price(f.strategy(plan, nil))
	for pass := 0; pass < MaxForesightPasses; pass++ {
		changed := false
		for _, l := range loads {
			from := moment{l.at.turn, l.at.loads + 1}
			if allowed != nil {
				a, ok := allowed[l.id]
				if !ok {
					continue
				}
				if from.before(a) {
					from = a
				}
			}
			var choices []moment
			for _, m := range first.moments {
				if !m.before(from) {
					choices = append(choices, m)
				}
			}
			cur, had := plan[l.id]
			choice, keep := cur, had
			try := func(m moment, archive bool) {
				if archive == had && (!archive || m == cur) {
					return
				}
				if archive {
					plan[l.id] = m
				} else {
					delete(plan, l.id)
				}
				if c := price(f.strategy(plan, nil)); c < best {
					best, choice, keep = c, m, archive
				}
			}
			for _, m := range choices {
				try(m, true)
			}
			try(moment{}, false) // never
			if keep {
				plan[l.id] = choice
			} else {
				delete(plan, l.id)
			}
			if keep != had || (keep && choice != cur) {
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return plan
}

// planStrategy archives each body of plan from the first request at or
// after its moment on (a pinned skill's only once a newer copy was
// delivered), and answers a repeated identical load with the dedupe note.
// With seen set, it lists the loads it was told of instead.
type planStrategy struct {
	f    *foresight
	plan map[string]moment
	seen *[]planLoad
	at   position
	// moments lists, in order, the moments the replay passed: each
	// turn's start and each point after a load.
	moments []moment
	skill   map[string]string // load id -> skill
	hash    map[string]string
	seq     map[string]int
	notes   map[string]string // load id -> the note that replaced it
	arch    map[string]string
	files   map[string]planFile // file id -> the file and the load it goes with
	carried map[string]bool     // the bodies the last request carried whole
}

// copies are the plan's copies of skill's body, in load order (the
// notes are none).
func (p *planStrategy) copies(skill string) []lifecycle.Body {
	var out []lifecycle.Body
	for id, sk := range p.skill {
		if _, note := p.notes[id]; sk == skill && !note {
			_, gone := p.arch[id]
			out = append(out, lifecycle.Body{ID: id, Skill: sk, Hash: p.hash[id], Archived: gone})
		}
	}
	slices.SortFunc(out, func(a, b lifecycle.Body) int { return p.seq[a.ID] - p.seq[b.ID] })
	return out
}

// planFile is a file read from a skill's folder and the load it goes with.
type planFile struct {
	lifecycle.Resource
	owner string
}

// Observe follows the moment and takes the loads; the plan is applied
// anew at each prompt, load and file.
func (p *planStrategy) Observe(ev Event) {
	p.at.observe(ev.Event)
	if m := p.at.moment(); m != p.moments[len(p.moments)-1] {
		p.moments = append(p.moments, m)
	}
	switch ev.Type {
	case lifecycle.EvRequest:
		// What the request carries whole: the bodies the plan has not
		// archived (the "already loaded" gate looks only at those).
		p.carried = map[string]bool{}
		for id := range p.skill {
			if _, gone := p.arch[id]; !gone {
				p.carried[id] = true
			}
		}
		return
	case lifecycle.EvPrompt: // a turn's start: the plan applies anew
	case lifecycle.EvLoad, lifecycle.EvLoads:
		for _, l := range loadsOf(ev.Event) {
			p.load(l)
		}
	case lifecycle.EvResource:
		if ev.Resource != nil {
			p.resource(*ev.Resource)
		}
	default:
		return
	}
	p.update()
}

func (p *planStrategy) load(l lifecycle.Load) {
	if _, known := p.skill[l.ID]; known || l.ID == "" {
		return
	}
	if p.f.dedupe && l.Hash != "" {
		// The sidecar's gate, over the plan's copies of the skill.
		if _, ok := host.Visible(p.copies(l.Skill), p.carried, l.Hash); ok {
			p.notes[l.ID] = lifecycle.AlreadyLoadedText(l.Skill, lifecycle.Body{})
		}
	}
	p.skill[l.ID], p.hash[l.ID], p.seq[l.ID] = l.Skill, l.Hash, len(p.seq)+1
	if _, note := p.notes[l.ID]; note {
		return
	}
	if p.seen != nil {
		*p.seen = append(*p.seen, planLoad{id: l.ID, at: p.at.moment()})
	}
	// A newer copy takes over the files of the live copies of its skill.
	for fid, f := range p.files {
		if _, gone := p.arch[f.owner]; !gone && p.skill[f.owner] == l.Skill {
			f.owner = l.ID
			p.files[fid] = f
		}
	}
}

// resource ties a file read from a skill's folder to the latest live copy
// of the skill's body, as the engine does; with none, the file stays.
func (p *planStrategy) resource(r lifecycle.Resource) {
	if !p.f.files || r.ID == "" {
		return
	}
	if _, known := p.files[r.ID]; known {
		return
	}
	best := ""
	for id, sk := range p.skill {
		_, gone := p.arch[id]
		_, note := p.notes[id]
		if sk == r.Skill && !gone && !note && (best == "" || p.seq[id] > p.seq[best]) {
			best = id
		}
	}
	if best != "" {
		p.files[r.ID] = planFile{Resource: r, owner: best}
	}
}

// update recomputes the archived set.
func (p *planStrategy) update() {
	now := p.at.moment()
	p.arch = map[string]string{}
	for id, sk := range p.skill {
		if n, ok := p.notes[id]; ok {
			p.arch[id] = n
		} else if m, ok := p.plan[p.at.key(id)]; ok && !now.before(m) && (!p.f.pinned[sk] || p.newerCopy(id)) {
			p.arch[id] = rules.Placeholder(sk)
		}
	}
	for fid, f := range p.files {
		if _, gone := p.arch[f.owner]; gone {
			p.arch[fid] = rules.ResourcePlaceholder(f.Skill, f.Path)
		}
	}
}

// newerCopy reports whether a later load delivered the body of id's skill.
func (p *planStrategy) newerCopy(id string) bool {
	for o, sk := range p.skill {
		if _, note := p.notes[o]; !note && sk == p.skill[id] && p.seq[o] > p.seq[id] {
			return true
		}
	}
	return false
}

// Archived is the plan's archived bodies and the notes.
func (p *planStrategy) Archived() map[string]string { return p.arch }

// Deduped reports whether load id was answered with the note.
func (p *planStrategy) Deduped(id string) bool {
	_, ok := p.notes[id]
	return ok
}
