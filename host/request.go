package host

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// BeforeRequest takes the loads the coming model request carries, in
// context order, and says which to replace by their placeholders. Loads
// the engine has not seen are recorded as new; a pending skill tool load
// the request does not carry never reached the context and is forgotten;
// a file of a skill's folder goes with the skill's live body.
//
// A host that sends its messages (Messages, with From) has the loads
// found in them (context.go) and is answered with a change set; one that
// lists Loads itself (replay) with the replacements of those loads.
func (s *Session) BeforeRequest(p BeforeRequestParams) (BeforeRequestResult, error) {
	if p.Messages != nil {
		return s.contextRequest(p)
	}
	return s.beforeRequest(p)
}

func (s *Session) beforeRequest(p BeforeRequestParams) (BeforeRequestResult, error) {
	keep := s.keep
	s.keep = 0
	if s.keptFor(p, keep) == nil {
		keep = 0 // the loads are checked and looked up whole
	}
	for i := keep; i < len(p.Loads); i++ {
		l := p.Loads[i]
		if l.ID == "" {
			return BeforeRequestResult{}, missing(fmt.Sprintf("loads[%d].id", i))
		}
		if l.Skill == "" {
			return BeforeRequestResult{}, missing(fmt.Sprintf("loads[%d].skill", i))
		}
		switch l.Kind {
		case lifecycle.ByTool, lifecycle.ByRead, lifecycle.ByCommand, lifecycle.ByReattach, KindResource:
		default:
			return BeforeRequestResult{}, &ParamError{fmt.Sprintf("loads[%d].kind", i), fmt.Sprintf("%q is not one of tool, read, command, reattach, resource", l.Kind)}
		}
	}
	var carried map[string]bool
	if len(s.pending) > 0 {
		carried = make(map[string]bool, len(p.Loads)-keep)
		for _, l := range p.Loads[keep:] {
			carried[l.ID] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.pending)) {
		if _, ok := s.flatIndex(keep, id); !ok && !carried[id] {
			s.apply(lifecycle.Event{Type: lifecycle.EvForget, ID: id})
		}
	}
	s.pending = nil
	f := s.keptFor(p, keep) // nil after a forget
	if f == nil {
		keep = 0
	}
	// A file of a skill's folder goes with the skill's latest live copy
	// from the first request that carries both: one read before the
	// skill was loaded, or while it was archived, waits for it (the
	// engine ties each file once). The rule needs nothing remembered, so
	// a restarted sidecar and replay decide as the sidecar did. (With
	// the loads kept, only the files waiting and the new loads can be
	// unknown.)
	var wait []int
	if f != nil {
		wait = f.wait
	}
	for _, k := range wait {
		s.offer(p.Loads[k])
	}
	for _, l := range p.Loads[keep:] {
		s.offer(l)
	}
	var r lifecycle.Request
	if f != nil && s.extend(f, p.Loads, s.archived()) {
		s.syncKept(f, p.Loads, s.archived())
		r = f.request(p)
	} else {
		f, keep = nil, 0
		s.phSizes = s.placeholderSizes(s.phSizes, p.Loads, s.archived())
		r = requestAt(p, s.phSizes)
	}
	r.Cache = s.modelCache()
	s.apply(lifecycle.Event{Type: lifecycle.EvRequest, Request: &r})
	archived := s.archived()
	if f != nil && f.epoch == s.epoch {
		return s.answerKept(f, p, r, archived, wait), nil
	}
	s.phSizes = s.placeholderSizes(s.phSizes, p.Loads, archived)
	sizes := s.phSizes
	res := BeforeRequestResult{Archive: s.archiveInto[:0]}
	if res.Archive == nil {
		res.Archive = []Replacement{}
	}
	if s.carried == nil {
		s.carried = make(map[string]bool, len(p.Loads))
	} else {
		clear(s.carried)
	}
	for k, l := range p.Loads {
		if sizes[k] >= 0 {
			res.Archive = append(res.Archive, Replacement{ID: l.ID, Placeholder: archived[l.ID]})
		} else if l.Kind != KindResource {
			s.carried[l.ID] = true // sent whole: visible until the next request
		}
	}
	res.Status = s.show(p, r, sizes, archived)
	s.keepLoads(p.Loads, sizes)
	return res, nil
}

// offer gives the engine a load it does not know.
func (s *Session) offer(l LoadRef) {
	if s.eng.Known(l.ID) {
		return // the engine has it (and would change nothing)
	}
	if l.Kind == KindResource {
		s.apply(lifecycle.Event{Type: lifecycle.EvResource, Resource: &lifecycle.Resource{ID: l.ID, Skill: l.Skill, Path: l.Path, Size: l.Size}})
		return
	}
	s.apply(lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: l.ID, Skill: l.Skill, Size: l.Size, Kind: l.Kind, Hash: l.Hash}})
}

// placeholderSizes are, for each load, the size of its placeholder when
// it is archived, else -1, in dst's array. The sizes of the placeholders
// are kept between requests: one is the same text at every request.
func (s *Session) placeholderSizes(dst []int64, loads []LoadRef, archived map[string]string) []int64 {
	if s.phLen == nil {
		s.phLen = map[string]int64{}
	}
	dst = slices.Grow(dst[:0], len(loads))
	for _, l := range loads {
		ph, ok := archived[l.ID]
		if !ok {
			dst = append(dst, -1)
			continue
		}
		n, ok := s.phLen[ph]
		if !ok {
			n = utf16Len(ph)
			s.phLen[ph] = n
		}
		dst = append(dst, n)
	}
	return dst
}

// requestOf describes the coming request to the engine. The host gives
// offsets in the request as it would be without replacements; the bodies
// archived already are sent as their placeholders, so every later offset
// moves back by what each of them saves (sizes in UTF-16 units, as the
// host counts them).
func requestOf(p BeforeRequestParams, archived map[string]string) lifecycle.Request {
	return requestAt(p, (&Session{}).placeholderSizes(nil, p.Loads, archived))
}

// requestAt is requestOf with, for each load, the size of its
// placeholder when archived (-1: not archived).
func requestAt(p BeforeRequestParams, ph []int64) lifecycle.Request {
	r := requestHead(p)
	if p.Total <= 0 {
		return r
	}
	var shift int64 // characters saved by replacements before the current body
	if len(p.Loads) > 0 {
		r.Bodies = make([]lifecycle.BodyPosition, 0, len(p.Loads))
	}
	for k, l := range p.Loads {
		off := max(l.Offset-shift, 0)
		size := l.Size
		if ph[k] >= 0 {
			size = ph[k]
			shift += max(l.Size-size, 0)
		}
		r.Bodies = append(r.Bodies, lifecycle.BodyPosition{ID: l.ID, Offset: off, Size: size})
	}
	r.Total = max(p.Total-shift, 0)
	if p.PreviousSize > 0 && p.PreviousSize <= p.Total {
		r.Previous = sentOffset(p.PreviousSize, p.Loads, ph)
	}
	if p.ChangedFrom > 0 {
		r.ChangedFrom = max(sentOffset(p.ChangedFrom, p.Loads, ph), 1)
	}
	return r
}

// requestHead is the request without its bodies, total and offsets.
func requestHead(p BeforeRequestParams) lifecycle.Request {
	return lifecycle.Request{
		SincePrevious: msDuration(p.SincePreviousMs),
		CacheCold:     p.CacheCold,
		CacheWarm:     p.CacheWarm,
		CacheStopped:  p.CacheStopped,
		SinceWarmed:   msDuration(p.SinceWarmedMs),
		ModelChanged:  p.ModelChanged,
		CharsPerUnit:  1,
		PreviousUsage: p.PreviousUsage.usage(),
	}
}

// sentOffset maps offset x of the request without replacements (the
// host's view) to the request as it is sent: less what the bodies archived
// before x save; an offset inside an archived body falls at its
// placeholder.
func sentOffset(x int64, loads []LoadRef, ph []int64) int64 {
	cut := x
	for k, l := range loads {
		n := ph[k]
		if n < 0 {
			continue
		}
		switch {
		case l.Offset+l.Size <= x:
			cut -= max(l.Size-n, 0)
		case l.Offset < x:
			// Inside the body: what of it lies past the placeholder's end
			// is gone.
			cut -= max(x-l.Offset-n, 0)
		}
	}
	return max(cut, 0)
}

// msDuration converts milliseconds, clamping negative values to zero.
func msDuration(ms int64) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// utf16Len is skills.UTF16Len as the host's sizes (int64) take it.
func utf16Len(s string) int64 { return int64(skills.UTF16Len(s)) }
