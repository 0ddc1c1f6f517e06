package host

import (
	"slices"
	"sort"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// A host that sends its messages in deltas (context.go) brings, at most
// requests, the loads of the previous request unchanged and a few after
// them. What beforeRequest worked out of those loads is kept (kept) and
// updated from what changed since: the loads appended, and the loads
// whose archived state the decisions since named. So a request costs what
// changed, not every load the session holds (issue 30). The first
// request, a request after a rewind, a restore, a forget, a compaction or
// a new world, and every request of a host that lists its loads
// (replay), take the full walk, which the kept state then starts from.

// kept is what beforeRequest kept of the previous request's loads.
type kept struct {
	n     int            // loads of the previous request
	ids   map[string]int // load id -> its index (the ids are unique)
	ph    []int64        // each load's placeholder size under the archived set, as last synced (-1: whole)
	epoch int            // Session.epoch when kept
	// old holds, for the loads whose archived state a decision named
	// since the previous answer, their placeholder size then; stale
	// the loads to look up again at the next sync.
	old   map[int]int64
	stale []int
	// cum[k] is what the placeholders of the loads before k save; cum
	// and bodies are good up to from.
	cum    []int64
	bodies []lifecycle.BodyPosition
	from   int
	sorted bool  // the loads lie one after the other, in order
	wait   []int // the loads the engine did not know after the previous request (files waiting for their skill)
	// The previous answer's footer figures.
	loaded  int
	saved   int64
	bySkill map[string]int // skill -> its loads archived (lineView.archived)
}

// touch notes that a decision named id as archived or unarchived.
func (f *kept) touch(id string) {
	k, ok := f.ids[id]
	if !ok {
		return
	}
	if _, ok := f.old[k]; !ok && k < f.n {
		f.old[k] = f.ph[k]
	}
	f.stale = append(f.stale, k)
}

// sync brings ph up to the archived set for the loads touched since.
func (s *Session) syncKept(f *kept, loads []LoadRef, archived map[string]string) {
	for _, k := range f.stale {
		f.ph[k] = s.placeholderSize(archived, loads[k].ID)
		f.from = min(f.from, k)
	}
	f.stale = f.stale[:0]
}

// placeholderSize is the size of id's placeholder, -1 when id is not
// archived.
func (s *Session) placeholderSize(archived map[string]string, id string) int64 {
	ph, ok := archived[id]
	if !ok {
		return -1
	}
	if s.phLen == nil {
		s.phLen = map[string]int64{}
	}
	n, ok := s.phLen[ph]
	if !ok {
		n = utf16Len(ph)
		s.phLen[ph] = n
	}
	return n
}

// keptFor is the kept state when request p carries the previous
// request's loads first, as they were (keep of them, the context model's
// word), and nothing since made it unsure; else nil.
func (s *Session) keptFor(p BeforeRequestParams, keep int) *kept {
	f := s.flat
	if f == nil || s.noFlat || keep == 0 || keep != f.n || keep > len(p.Loads) || f.epoch != s.epoch ||
		p.Total <= 0 || p.ChangedFrom != 0 || !s.view.known || s.carried == nil {
		return nil
	}
	return f
}

// extend adds the loads after the kept ones (ids unique, else false).
func (s *Session) extend(f *kept, loads []LoadRef, archived map[string]string) bool {
	for k := len(f.ph); k < len(loads); k++ {
		if !f.index(loads, k) {
			return false
		}
		f.ph = append(f.ph, s.placeholderSize(archived, loads[k].ID))
	}
	return true
}

// index adds loads[k] to ids and to the order check; false when its id
// is there already.
func (f *kept) index(loads []LoadRef, k int) bool {
	l := loads[k]
	if _, dup := f.ids[l.ID]; dup {
		return false
	}
	f.ids[l.ID] = k
	if k > 0 && l.Offset < loads[k-1].Offset+loads[k-1].Size {
		f.sorted = false
	}
	return true
}

// request is requestAt for the kept loads: the positions from the first
// load whose placeholder changed on.
func (f *kept) request(p BeforeRequestParams) lifecycle.Request {
	r := requestHead(p)
	n := len(p.Loads)
	f.cum = f.cum[:min(f.from+1, len(f.cum))]
	f.bodies = f.bodies[:min(f.from, len(f.bodies))]
	if len(f.cum) == 0 {
		f.cum = append(f.cum, 0)
	}
	for k := len(f.bodies); k < n; k++ {
		l := p.Loads[k]
		shift, size := f.cum[k], l.Size
		if f.ph[k] >= 0 {
			size = f.ph[k]
		}
		f.bodies = append(f.bodies, lifecycle.BodyPosition{ID: l.ID, Offset: max(l.Offset-shift, 0), Size: size})
		if f.ph[k] >= 0 {
			shift += max(l.Size-size, 0)
		}
		f.cum = append(f.cum, shift)
	}
	f.from = n
	r.Bodies, r.Index = f.bodies[:n], f.ids
	r.Total = max(p.Total-f.cum[n], 0)
	if p.PreviousSize > 0 && p.PreviousSize <= p.Total {
		if f.sorted {
			r.Previous = f.sentOffset(p.PreviousSize, p.Loads)
		} else {
			r.Previous = sentOffset(p.PreviousSize, p.Loads, f.ph)
		}
	}
	return r
}

// sentOffset is the function of that name for loads that lie one after
// the other: those that end by x form a prefix, and one more may hold x.
func (f *kept) sentOffset(x int64, loads []LoadRef) int64 {
	j := sort.Search(len(loads), func(k int) bool { return loads[k].Offset+loads[k].Size > x })
	cut := x - f.cum[j]
	for k := j; k < len(loads) && loads[k].Offset < x; k++ {
		if f.ph[k] >= 0 {
			cut -= max(x-loads[k].Offset-f.ph[k], 0)
		}
	}
	return max(cut, 0)
}

// changed are the loads whose archived state may differ from the
// previous answer's, in order: those a decision named, and the new ones.
// same says the answer's Archive is the previous one's.
func (f *kept) changed(total int) (ks []int, same bool) {
	same = true
	for k, was := range f.old {
		ks = append(ks, k)
		if was >= 0 || f.ph[k] >= 0 {
			same = false
		}
	}
	slices.Sort(ks)
	for k := f.n; k < total; k++ {
		ks = append(ks, k)
		if f.ph[k] >= 0 {
			same = false
		}
	}
	return ks, same
}

// flatIndex is where the kept loads, the first keep of the request, have
// load id.
func (s *Session) flatIndex(keep int, id string) (int, bool) {
	if keep == 0 || s.flat == nil {
		return 0, false
	}
	k, ok := s.flat.ids[id]
	return k, ok && k < keep
}

// keepLoads keeps what the full walk found of the request's loads, with
// sizes their placeholders' (a host that sends its messages only).
func (s *Session) keepLoads(loads []LoadRef, sizes []int64) {
	s.flat = nil
	if !s.fromContext || s.noFlat {
		return
	}
	f := &kept{n: len(loads), ids: make(map[string]int, len(loads)), ph: slices.Clone(sizes), epoch: s.epoch,
		old: map[int]int64{}, sorted: true, bySkill: map[string]int{}}
	for k, l := range loads {
		if !f.index(loads, k) {
			return
		}
		if !s.eng.Known(l.ID) {
			f.wait = append(f.wait, k)
		}
		switch {
		case l.Kind == KindResource:
		case sizes[k] >= 0:
			f.saved += max(l.Size-sizes[k], 0)
			f.bySkill[l.Skill]++
		default:
			f.loaded++
		}
	}
	s.flat = f
}

// answerKept answers a request of kept loads from what changed since
// the previous answer: the archive (the previous one's when same), the
// bodies carried whole, the lines and the footer (show).
func (s *Session) answerKept(f *kept, p BeforeRequestParams, r lifecycle.Request, archived map[string]string, wait []int) BeforeRequestResult {
	s.syncKept(f, p.Loads, archived)
	ks, same := f.changed(len(p.Loads))
	var res BeforeRequestResult
	s.archiveSame = same
	if !same {
		res.Archive = s.archiveInto[:0]
		for k, l := range p.Loads {
			if f.ph[k] >= 0 {
				res.Archive = append(res.Archive, Replacement{ID: l.ID, Placeholder: archived[l.ID]})
			}
		}
	}
	for _, k := range ks {
		if l := p.Loads[k]; l.Kind != KindResource {
			if f.ph[k] >= 0 {
				delete(s.carried, l.ID)
			} else {
				s.carried[l.ID] = true
			}
		}
	}
	res.Status = s.showKept(f, p, r, ks, archived)
	var still []int
	for _, k := range wait {
		if !s.eng.Known(p.Loads[k].ID) {
			still = append(still, k)
		}
	}
	for k := f.n; k < len(p.Loads); k++ {
		if !s.eng.Known(p.Loads[k].ID) {
			still = append(still, k)
		}
	}
	f.wait, f.n = still, len(p.Loads)
	clear(f.old)
	return res
}

// showKept is show for the kept loads ks that changed.
func (s *Session) showKept(f *kept, p BeforeRequestParams, r lifecycle.Request, ks []int, archived map[string]string) string {
	v := &s.view
	v.learn(p)
	var gone, back, again []LoadRef
	for _, k := range ks {
		l := p.Loads[k]
		if l.Kind == KindResource {
			continue
		}
		isArch := f.ph[k] >= 0
		_, was := v.archived[l.ID]
		switch {
		case isArch && !was:
			gone = append(gone, l)
		case !isArch && was:
			back = append(back, l)
		case !v.previous[l.ID] && isLoadKind(l.Kind):
			if f.bySkill[l.Skill] > 0 {
				again = append(again, l)
			}
		}
	}
	for _, k := range ks {
		l := p.Loads[k]
		if k >= f.n {
			v.previous[l.ID] = true
		}
		if l.Kind == KindResource {
			continue
		}
		if o, ok := f.old[k]; ok && o >= 0 {
			f.saved -= max(l.Size-o, 0)
			f.bySkill[l.Skill]--
			delete(v.archived, l.ID)
		} else if k < f.n {
			f.loaded--
		}
		if n := f.ph[k]; n >= 0 {
			f.saved += max(l.Size-n, 0)
			f.bySkill[l.Skill]++
			v.archived[l.ID] = l.Skill
		} else {
			f.loaded++
		}
	}
	v.saved += f.saved
	if s.world.Config.Verbose && len(gone)+len(back)+len(again) > 0 {
		pos := map[string]lifecycle.BodyPosition{}
		for _, ls := range [][]LoadRef{gone, back, again} {
			for _, l := range ls {
				pos[l.ID] = r.Bodies[f.ids[l.ID]]
			}
		}
		s.changeLines(gone, back, again, archived, pos, r, p.CacheCold)
	}
	return statusLine(f.loaded, len(v.archived), v)
}
