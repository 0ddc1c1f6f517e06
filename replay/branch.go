package replay

import (
	"encoding/json"
	"hash/maphash"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/session"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// segKey identifies one serialised message variant.
type segKey struct {
	msg any    // *session.Entry or *session.Message (synthetic)
	ph  string // placeholder replacing the body, "" for none
	br  bool   // as the bridge sends it (bridge.go)
}

// branch is the state shared by the strategies replaying one branch.
type branch struct {
	r         *Runner
	br        []*session.Entry
	info      *pathInfo
	segs      map[segKey]msgSeg
	synth     map[string]*session.Message
	buf       []byte
	trail     pricing.Segment
	trailOnly []pricing.Segment
	loadIDs   map[string]bool // ids of every load on the branch (and added reloads), and of the files read from skills' folders
	resIDs    map[string]bool // ids of those files
	// hasRecords: the bridge recorded archive decisions on this branch;
	// the recorded requests carried its placeholders, so calibration
	// applies them.
	hasRecords bool
	seq0       int // recorded requests replayed before this branch
	// bv is the branch as the bridge would have sent it (nil: recorded
	// with the bridge, or no pack to render its listing from).
	bv *bridgeView
	// regions are the re-attach regions after compactions, by message key
	// (the session's own, recorded with the bridge, and those a strategy's
	// session sends): the bodies in each.
	regions map[any][]regionBlock
	// turnCalls are the tool calls of each user turn, by its user entry:
	// the work the recorded turn did (the comeback model reads it).
	turnCalls map[*session.Entry][]*call
}

// regionBlock is one body of a re-attach region: its load id and skill,
// where its text starts in the message's text (bytes), and the text.
type regionBlock struct {
	id, skill string
	start     int
	text      string
}

// regionBlocks finds the bodies of a re-attach region's text, as the
// bridge finds them (<skill_content> blocks), named after compaction cid.
func regionBlocks(text, cid string) []regionBlock {
	var out []regionBlock
	for _, m := range contentBlock.FindAllStringSubmatchIndex(text, -1) {
		skill := text[m[2]:m[3]]
		out = append(out, regionBlock{id: lifecycle.ReattachID(cid, skill), skill: skill, start: m[0], text: text[m[0]:m[1]]})
	}
	return out
}

var contentBlock = regexp.MustCompile(`<skill_content name="([^"]+)">[\s\S]*?</skill_content>`)

func (r *Runner) newBranch(br []*session.Entry, cwd string) *branch {
	b := &branch{r: r, br: br, info: detect(r.opts.Pack, br, cwd), segs: map[segKey]msgSeg{},
		synth: map[string]*session.Message{}, loadIDs: map[string]bool{}}
	for _, ls := range b.info.loads {
		for _, l := range ls {
			b.loadIDs[l.ID] = true
		}
	}
	// A file read from a skill's folder is placed like a body: it goes
	// with one (lifecycle.Resource).
	b.resIDs = map[string]bool{}
	for _, rs := range b.info.resources {
		for _, r := range rs {
			b.loadIDs[r.ID], b.resIDs[r.ID] = true, true
		}
	}
	for _, e := range br {
		if _, ok := recordOf(e); ok {
			b.hasRecords = true
			break
		}
	}
	b.bv = newBridgeView(r.opts.Pack, b.info, br, b.hasRecords)
	b.regions = map[any][]regionBlock{}
	cid := ""
	for _, e := range br {
		switch {
		case e.Type == session.TypeCompaction:
			cid = e.ID
		case e.Type == session.TypeCustomMessage && e.CustomType == host.ReattachType:
			b.regions[e] = regionBlocks(customText(e), cid)
		}
	}
	b.turnCalls = map[*session.Entry][]*call{}
	var turn *session.Entry
	for _, e := range br {
		if m := e.Message; m != nil && e.Type == session.TypeMessage {
			switch m.Role {
			case session.RoleUser:
				turn = e
			case session.RoleAssistant:
				if turn != nil {
					b.turnCalls[turn] = append(b.turnCalls[turn], b.info.calls[e]...)
				}
			}
		}
	}
	b.trail = b.segment("]")
	b.trailOnly = []pricing.Segment{b.trail}
	return b
}

func (r *Runner) replayBranch(s *session.Session, leaf *session.Entry) {
	br := s.Branch(leaf)
	b := r.newBranch(br, s.Header.Cwd)
	b.seq0 = r.seq
	r.noteLoads(b.info)
	rep := BranchReport{File: s.Path, Leaf: leaf.ID}
	for _, e := range br {
		if m := e.Message; m != nil && m.Role == session.RoleAssistant {
			rep.Requests++
			if u := m.Usage; u != nil {
				rep.RecordedCostUSD += u.Cost.Total
				rep.RecordedPromptTokens += u.Input + u.CacheRead + u.CacheWrite
				rep.RecordedCacheRead += u.CacheRead
				rep.RecordedOutput += u.Output
			}
		}
	}
	var measured []observed
	rep.Calibration, rep.Accuracy, measured = b.calibrate()
	idx := len(r.branches)
	for i, spec := range r.specs {
		var out runOut
		if i == 0 && !b.hasRecords { // keep-all: priced from the calibration pass
			out = b.priceKeepAll(rep.Calibration, measured, idx, &r.series[i])
		} else {
			out = b.run(spec, rep.Calibration, idx, &r.series[i])
		}
		res := &r.results[i]
		t := out.totals
		res.CostUSD += t.Total
		res.PeakContext += t.PeakPromptTokens
		res.Reloads += out.reloads
		res.OrphanUses += out.orphans
		res.Comebacks += out.comebacks
		res.Archives += out.archives
		res.Requests += t.Requests
		res.Sessions++
		res.PromptTokens += t.PromptTokens
		res.CacheReadTokens += t.CacheReadTokens
		res.CacheWriteTokens += t.CacheWriteTokens
		res.OutputTokens += t.OutputTokens
		res.ColdRequests += t.ColdRequests
		res.PrefixBreaks += t.PrefixBreaks
		res.BrokenPrefixChars += t.BrokenPrefixChars
		rep.Strategies = append(rep.Strategies, BranchStrategy{Name: spec.Name, CostUSD: t.Total,
			PeakContext: t.PeakPromptTokens, Reloads: out.reloads, OrphanUses: out.orphans, Comebacks: out.comebacks, Archives: out.archives,
			Decisions: out.notes})
	}
	r.branches = append(r.branches, rep)
	r.seq += rep.Requests
}

func (b *branch) segment(text string) pricing.Segment {
	return pricing.Segment{Hash: maphash.String(b.r.seed, text), Len: utf8.RuneCountInString(text), Text: text}
}

// msgSeg is one message variant: its serialised form, and its length as
// the bridge measures it (bridgeSize).
type msgSeg struct {
	seg pricing.Segment
	// size and body are in the bridge's units; body is the length of the
	// skill body the message carries (the whole result, or the /skill:
	// block), when it carries one.
	size, body int
}

// msgSegment returns the serialised form of one provider message, with
// the body replaced by its placeholder when archived.
func (b *branch) msgSegment(lm llmMessage, arch map[string]string, bv *bridgeView) msgSeg {
	m := lm.synth
	var e *session.Entry
	if lm.cm != nil {
		m = lm.cm.Message
		e = lm.cm.Entry
	}
	bridged := ""
	if bv != nil && e != nil && lm.cm.Kind == session.FromMessage {
		switch m.Role {
		case session.RoleAssistant:
			if nm := bv.calls[e]; nm != nil {
				m = nm
			}
		case session.RoleToolResult:
			bridged = bv.results[b.info.idOf(e, m)]
		}
	}
	ph := ""
	if len(arch) > 0 {
		switch m.Role {
		case session.RoleToolResult:
			ph = arch[b.info.idOf(e, m)]
		case session.RoleUser:
			if e != nil && lm.cm.Kind == session.FromMessage {
				for _, l := range b.info.loads[e] {
					if p, ok := arch[l.ID]; ok {
						ph = p
					}
				}
			}
		}
	}
	blocks := b.regions[lm.key]
	for _, blk := range blocks {
		if p, ok := arch[blk.id]; ok {
			ph += blk.id + "\x00" + p + "\x00"
		}
	}
	k := segKey{lm.key, ph, bv != nil}
	if s, ok := b.segs[k]; ok {
		return s
	}
	var replace func(string) string
	if bridged != "" {
		replace = func(string) string { return bridged }
	}
	switch {
	case ph != "" && len(blocks) > 0:
		// A re-attach region: each archived body is replaced within its
		// text, as the bridge replaces it.
		replace = func(t string) string {
			for _, blk := range blocks {
				if p, ok := arch[blk.id]; ok {
					t = strings.Replace(t, blk.text, p, 1)
				}
			}
			return t
		}
	case ph != "" && m.Role == session.RoleToolResult:
		replace = func(string) string { return ph }
	case ph != "":
		replace = func(t string) string { return replaceSkillBlock(t, ph) }
	}
	b.buf = serialise(b.buf[:0], m, replace)
	s := msgSeg{seg: b.bytesSegment(b.buf)}
	s.size, s.body = bridgeSize(lm.cm, m, replace)
	b.segs[k] = s
	return s
}

// bodyID returns the load id of the skill body a message carries ("" for
// none): a tool result that loaded a skill, or a user message with a
// /skill:name block.
func (b *branch) bodyID(lm llmMessage) string {
	m := lm.synth
	var e *session.Entry
	if lm.cm != nil {
		m, e = lm.cm.Message, lm.cm.Entry
	}
	switch m.Role {
	case session.RoleToolResult:
		if id := b.info.idOf(e, m); b.loadIDs[id] {
			return id
		}
	case session.RoleUser:
		if lm.cm != nil && lm.cm.Kind == session.FromMessage {
			if ls := b.info.loads[lm.cm.Entry]; len(ls) > 0 {
				return ls[0].ID
			}
		}
	}
	return ""
}

// positions lists the bodies of the request last built, in order.
func (rb *reqBuilder) positions() []bodyPos {
	if len(rb.tailBodies) == 0 {
		return rb.bodies
	}
	return append(append([]bodyPos(nil), rb.bodies...), rb.tailBodies...)
}

// bridgePositions lists them as the bridge reports them (bridgeSize).
func (rb *reqBuilder) bridgePositions() []bodyPos {
	if len(rb.btail) == 0 {
		return rb.bbodies
	}
	return append(append([]bodyPos(nil), rb.bbodies...), rb.btail...)
}

// segmentTextPrefix is how much of a message's text a segment keeps for
// counting a shared prefix inside the first message that differs (a
// placeholder against a body, a summary against a message): enough for
// the message's structure and the start of its content, without keeping
// a copy of every body.
const segmentTextPrefix = 512

func (b *branch) bytesSegment(buf []byte) pricing.Segment {
	keep := buf
	if len(keep) > segmentTextPrefix {
		keep = keep[:segmentTextPrefix]
		for len(keep) > 0 && !utf8.RuneStart(buf[len(keep)]) {
			keep = keep[:len(keep)-1]
		}
	}
	return pricing.Segment{Hash: maphash.Bytes(b.r.seed, buf), Len: utf8.RuneCount(buf), Text: string(keep)}
}

func replaceSkillBlock(t, ph string) string {
	if !skillBlock.MatchString(t) {
		return t
	}
	end := strings.Index(t, "</skill>")
	if end < 0 {
		return ph
	}
	return ph + t[end+len("</skill>"):]
}

// reqBuilder builds the segments of successive requests of one run,
// incrementally: while the context only grows (no compaction, no change
// in the archived set or in inserted reloads), the segments of the
// previous request are kept and only new messages are serialised.
type reqBuilder struct {
	b           *branch
	bv          *bridgeView // requests as the bridge sends them (nil: as recorded)
	header      pricing.Segment
	persist     []pricing.Segment // header + provider messages of msgs[:built]
	built       int
	compactions int
	arch        map[string]string
	insVersion  int
	view        providerView
	tmp         []llmMessage
	// bodies are the skill bodies in persist, with their offsets in
	// characters from the start of the request; end is persist's length.
	bodies     []bodyPos
	end        int
	tailBodies []bodyPos
	// The same in the bridge's units (bridgeSize): the bodies, where
	// persist ends, and the bodies of the tail; base is the system
	// prompt's length.
	bbodies, btail []bodyPos
	bend, bbase    int
	btotal         int // the bridge's size of the request last built
	// The host's view (what the bridge lists in before_request): the
	// same units, without the archived bodies' placeholders (the notes
	// of "already loaded" answers are the messages' text). rprev is where
	// the last response starts; raw the request last built.
	notes       map[string]string
	rbodies     []bodyPos
	rend, rprev int
	raw         hostView
}

// hostView is a request as the host describes it to the session: the
// bodies and files it carries, in order, and its size and the previous
// one's, in the bridge's units, without replacements.
type hostView struct {
	bodies      []bodyPos
	total, prev int
}

// requestInfo is what replay knows of a request about to be sent, for
// the engine's BeforeRequest (cache-aware archiving). Sizes and offsets
// are in characters of the rebuilt request, header included.
type requestInfo struct {
	Number       int           // 1-based, in the branch
	Since        time.Duration // since the previous request (0: first or unknown)
	Cold         bool          // known cold, as the bridge knows it: after a compaction
	ModelChanged bool
	Compacted    bool // a compaction since the previous request
	Total        int
	Previous     int // the previous request as sent, in the units of Total (0: none)
	ChangedFrom  int // first character that differs from the previous request, when not only appended (0: none)
	Bodies       []bodyPos
}

// request converts the info to the engine's form (units: characters).
func (ri requestInfo) request() *lifecycle.Request {
	r := &lifecycle.Request{SincePrevious: ri.Since, CacheCold: ri.Cold, ModelChanged: ri.ModelChanged,
		Number: ri.Number, Total: int64(ri.Total), Previous: int64(ri.Previous), ChangedFrom: int64(ri.ChangedFrom), CharsPerUnit: 1}
	if len(ri.Bodies) > 0 {
		r.Bodies = make([]lifecycle.BodyPosition, len(ri.Bodies))
		for i, b := range ri.Bodies {
			r.Bodies[i] = lifecycle.BodyPosition{ID: b.ID, Offset: int64(b.Offset), Size: int64(b.Size)}
		}
	}
	return r
}

// bodyPos is where a loaded body sits in a request.
type bodyPos struct {
	ID           string // load id
	Offset, Size int    // characters: the start of its message, the message's length
}

// add appends a message's segment, noting the body it carries.
func (rb *reqBuilder) add(lm llmMessage, arch map[string]string) {
	ms, raw := rb.segments(lm, arch)
	seg := ms.seg
	id := rb.b.bodyID(lm)
	if id != "" {
		rb.bodies = append(rb.bodies, bodyPos{id, rb.end, seg.Len})
		if ms.body > 0 {
			rb.bbodies = append(rb.bbodies, bodyPos{id, rb.bend, ms.body})
		}
	}
	rb.bbodies = rb.b.regionPositions(rb.bbodies, lm, rb.bend, arch)
	rb.rbodies = rb.b.regionPositions(rb.rbodies, lm, rb.rend, nil)
	rb.persist = append(rb.persist, seg)
	rb.end += seg.Len
	rb.bend += ms.size
	rb.rbodies, rb.rend, rb.rprev = rawAdd(rb.rbodies, rb.rend, rb.rprev, lm, id, raw)
}

// regionPositions appends the bodies of a re-attach region that starts
// at off (the bridge's units), each archived one as its placeholder.
func (b *branch) regionPositions(out []bodyPos, lm llmMessage, off int, arch map[string]string) []bodyPos {
	blocks := b.regions[lm.key]
	if len(blocks) == 0 {
		return out
	}
	text := toolResultText(lm.message())
	shift := 0 // what the archived bodies before this one save
	for _, blk := range blocks {
		at := off + skills.UTF16Len(text[:blk.start]) - shift
		size := skills.UTF16Len(blk.text)
		if p, ok := arch[blk.id]; ok {
			shift += size - skills.UTF16Len(p)
			size = skills.UTF16Len(p)
		}
		out = append(out, bodyPos{blk.id, at, size})
	}
	return out
}

// segments is a message as sent (arch applied) and as the host lists it
// (the notes only).
func (rb *reqBuilder) segments(lm llmMessage, arch map[string]string) (sent, raw msgSeg) {
	sent = rb.b.msgSegment(lm, arch, rb.bv)
	if len(arch) == len(rb.notes) {
		return sent, sent
	}
	return sent, rb.b.msgSegment(lm, rb.notes, rb.bv)
}

// rawAdd appends a message to the host's view: the body it carries (id),
// where it ends, where the last response starts.
func rawAdd(bodies []bodyPos, end, prev int, lm llmMessage, id string, raw msgSeg) ([]bodyPos, int, int) {
	if m := lm.message(); m != nil && m.Role == session.RoleAssistant {
		prev = end
	}
	if id != "" && raw.body > 0 {
		bodies = append(bodies, bodyPos{id, end, raw.body})
	}
	return bodies, end + raw.size, prev
}

// newBuilder starts the requests of a run: header is the calibrated
// header (tools and system prompt, as the request carries them), base the
// system prompt's length as the bridge counts it.
func (b *branch) newBuilder(header pricing.Segment, base int, bv *bridgeView) *reqBuilder {
	return &reqBuilder{b: b, bv: bv, header: header, persist: []pricing.Segment{header}, end: header.Len,
		bbase: base, bend: base, rend: base, view: providerView{synth: b.synth}}
}

func sameArch(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// request returns the segments of the request sent before entry next:
// header and the provider view of the context (reload pairs inserted
// before the entries they precede) in segs, which is shared and only
// grows until the next rebuild; the reload pairs of next and the trailer
// in tail.
func (rb *reqBuilder) request(cb *session.ContextBuilder, arch, notes map[string]string,
	inserts map[*session.Entry][]*session.Message, insVersion int, next *session.Entry) (segs, tail []pricing.Segment) {
	msgs := cb.Messages()
	if cb.Compactions != rb.compactions || insVersion != rb.insVersion || !sameArch(arch, rb.arch) || rb.built > len(msgs) {
		rb.notes = notes
		rb.rbodies, rb.rend, rb.rprev = rb.rbodies[:0], rb.bbase, 0
		// A fresh slice: the previous request's segments stay intact.
		rb.persist = append(make([]pricing.Segment, 0, len(rb.persist)+16), rb.header)
		rb.bodies, rb.end = rb.bodies[:0], rb.header.Len
		rb.bbodies, rb.bend = rb.bbodies[:0], rb.bbase
		rb.built = 0
		rb.view.reset()
		rb.compactions, rb.insVersion = cb.Compactions, insVersion
		rb.arch = arch
	}
	for i := rb.built; i < len(msgs); i++ {
		rb.tmp = rb.view.add(&msgs[i], rb.tmp[:0])
		for _, lm := range rb.tmp {
			if lm.cm != nil && len(inserts) > 0 {
				for _, m := range inserts[lm.cm.Entry] {
					rb.add(llmMessage{synth: m, key: m}, arch)
				}
			}
			rb.add(lm, arch)
		}
	}
	rb.built = len(msgs)
	rb.tailBodies, rb.btail = rb.tailBodies[:0], rb.btail[:0]
	off, boff := rb.end, rb.bend
	rbodies, rend, rprev := append([]bodyPos(nil), rb.rbodies...), rb.rend, rb.rprev
	for _, m := range inserts[next] {
		lm := llmMessage{synth: m, key: m}
		ms, raw := rb.segments(lm, arch)
		seg := ms.seg
		id := rb.b.bodyID(lm)
		if id != "" {
			rb.tailBodies = append(rb.tailBodies, bodyPos{id, off, seg.Len})
			if ms.body > 0 {
				rb.btail = append(rb.btail, bodyPos{id, boff, ms.body})
			}
		}
		rb.btail = rb.b.regionPositions(rb.btail, lm, boff, arch)
		rbodies = rb.b.regionPositions(rbodies, lm, rend, nil)
		rbodies, rend, rprev = rawAdd(rbodies, rend, rprev, lm, id, raw)
		off += seg.Len
		boff += ms.size
		tail = append(tail, seg)
	}
	rb.btotal = boff
	rb.raw = hostView{bodies: rbodies, total: rend, prev: rprev}
	if len(tail) == 0 {
		return rb.persist, rb.b.trailOnly
	}
	return rb.persist, append(tail, rb.b.trail)
}

func requestTime(e *session.Entry) time.Time {
	if m := e.Message; m != nil && m.Timestamp > 0 {
		return time.UnixMilli(m.Timestamp).UTC()
	}
	return e.Timestamp
}

func usable(m *session.Message) bool {
	u := m.Usage
	return u != nil && u.Input+u.CacheRead+u.CacheWrite > 0 && m.StopReason != "error" && m.StopReason != "aborted"
}

// models is the host's model registry for the branch: every model its
// responses came from, at replay's prices (a session does not record the
// cache lifetime its model declared).
func (b *branch) models() []host.HostModel {
	var out []host.HostModel
	seen := map[host.ModelRef]bool{}
	for _, e := range b.br {
		m := e.Message
		if m == nil || m.Role != session.RoleAssistant {
			continue
		}
		ref := host.ModelRef{Provider: m.Provider, ID: m.Model}
		if seen[ref] {
			continue
		}
		seen[ref] = true
		pr := b.r.prices.For(m.Provider, m.Model)
		out = append(out, host.HostModel{Provider: ref.Provider, ID: ref.ID, Input: &pr.Input, Output: &pr.Output, CacheRead: &pr.CacheRead, CacheWrite: &pr.CacheWrite})
	}
	return out
}

// customText is the text of a custom message entry (its content, a string
// or text blocks).
func customText(e *session.Entry) string {
	var str string
	if json.Unmarshal([]byte(e.Content), &str) == nil {
		return str
	}
	var blocks []struct{ Type, Text string }
	_ = json.Unmarshal([]byte(e.Content), &blocks)
	var b strings.Builder
	for _, blk := range blocks {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}
