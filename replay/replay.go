package replay

import (
	"encoding/json"
	"hash/maphash"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
)

// DefaultTTL is the default cache lifetime.
const DefaultTTL = 5 * time.Minute

// Options of a replay.
type Options struct {
	Pack *Pack
	// Strategies to compare; keep-all is added first when not given.
	Strategies []StrategySpec
	// Prices: nil means the defaults. Models the table does not name take
	// their prices from the session's recorded cost when it has one.
	Prices *pricing.Table
	// TTL is the cache lifetime (0: the cache never expires).
	TTL         time.Duration
	AllBranches bool
	// Series keeps the prompt tokens of every request per strategy (for
	// charts).
	Series bool
	// Decisions keeps, per branch and engine strategy, what the engine
	// decided and why, request by request (BranchStrategy.Decisions).
	Decisions bool
	// NoComebacks switches the comeback model off (StrategySpec.Comebacks):
	// the agent loads an archived skill again only where the session shows
	// it needed the skill's files (orphan uses) or loaded a skill itself.
	// AllComebacks makes the agent come back to every archived skill a
	// prompt asks for, not only to the one that does the turn's work
	// (PickComebacks). Without comebacks and with all of them, replay
	// brackets what an agent would do. NoComebacks wins over it.
	NoComebacks  bool
	AllComebacks bool
	MaxLine      int // session reader's line limit (0: default)
}

// Runner replays sessions one at a time and accumulates the results. Only
// one session is in memory at a time.
type Runner struct {
	opts     Options
	specs    []StrategySpec
	prices   *pricing.Table
	results  []StrategyResult
	branches []BranchReport
	diags    []session.Diagnostic
	omitted  []OmittedDiagnostics
	skipped  []Skipped
	series   [][]Point
	bytes    int64
	files    int
	seed     maphash.Seed
	seq      int // recorded requests so far
	loaded   map[string]*LoadedSkill
}

// NewRunner prepares a replay.
func NewRunner(opts Options) *Runner {
	r := &Runner{opts: opts, seed: maphash.MakeSeed()}
	r.specs = append(r.specs, KeepAllSpec())
	for _, s := range opts.Strategies {
		if s.Name != KeepAllName {
			r.specs = append(r.specs, s)
		}
	}
	r.prices = opts.Prices
	if r.prices == nil {
		r.prices = pricing.NewTable()
	}
	r.results = make([]StrategyResult, len(r.specs))
	r.series = make([][]Point, len(r.specs))
	for i, s := range r.specs {
		r.results[i].Name = s.Name
	}
	return r
}

// Point is one request of a chart series.
type Point struct {
	Branch int // index in Report.Branches
	// Seq numbers the recorded requests across the replay (from 0); an
	// added reload shares the number of the request it precedes, so the
	// strategies' series line up.
	Seq    int
	Tokens int // prompt tokens
	Time   time.Time
	// CostUSD is the request's cost; Archived counts the bodies
	// archived for the first time from this request on, Reloaded the
	// loads since the previous request of skills whose copy was archived
	// (StrategyResult.Reloads): the bodies back in this request.
	CostUSD  float64
	Archived int
	Reloaded int
}

// StrategyResult sums one strategy over every replayed branch.
type StrategyResult struct {
	Name string `json:"name"`
	// CostUSD under prefix-cache pricing; CostPct relative to keep-all.
	CostUSD float64 `json:"costUSD"`
	CostPct float64 `json:"costPct"`
	// PeakContext sums each branch's largest request (tokens); PeakPct
	// relative to keep-all.
	PeakContext       int     `json:"peakContextTokens"`
	PeakPct           float64 `json:"peakPct"`
	Reloads           int     `json:"reloads"`
	OrphanUses        int     `json:"orphanUses"`
	Comebacks         int     `json:"comebacks"`
	Archives          int     `json:"archives"`
	Requests          int     `json:"requests"`
	Sessions          int     `json:"sessions"`
	PromptTokens      int     `json:"promptTokens"`
	CacheReadTokens   int     `json:"cacheReadTokens"`
	CacheWriteTokens  int     `json:"cacheWriteTokens"`
	OutputTokens      int     `json:"outputTokens"`
	ColdRequests      int     `json:"coldRequests"`
	PrefixBreaks      int     `json:"prefixBreaks"`
	BrokenPrefixChars int     `json:"brokenPrefixChars"`
}

// BranchReport is one replayed branch of one session file.
type BranchReport struct {
	File     string `json:"file"`
	Leaf     string `json:"leaf"`
	Requests int    `json:"requests"`
	// Recorded usage summed over the branch's assistant messages.
	RecordedCostUSD      float64          `json:"recordedCostUSD"`
	RecordedPromptTokens int              `json:"recordedPromptTokens"`
	RecordedCacheRead    int              `json:"recordedCacheReadTokens"`
	RecordedOutput       int              `json:"recordedOutputTokens"`
	Calibration          Calibration      `json:"calibration"`
	Accuracy             Accuracy         `json:"accuracy"`
	Strategies           []BranchStrategy `json:"strategies"`
}

// BranchStrategy is one strategy's figures on one branch.
type BranchStrategy struct {
	Name        string  `json:"name"`
	CostUSD     float64 `json:"costUSD"`
	PeakContext int     `json:"peakContextTokens"`
	Reloads     int     `json:"reloads"`
	OrphanUses  int     `json:"orphanUses"`
	Comebacks   int     `json:"comebacks"`
	Archives    int     `json:"archives"`
	// Decisions is what the engine decided in this branch, with its
	// reasons (Options.Decisions; engine strategies only).
	Decisions []DecisionNote `json:"decisions,omitempty"`
}

// DecisionNote is one thing an engine strategy decided during a replay,
// or a body it kept due: Action is the engine's (due, undue, archive,
// unarchive, cache-lifetime, …) or "kept" for a body due for archive that
// the request kept (noted once a turn, at the first request that kept
// it). Request is the model request it applies to (decisions taken at a
// user prompt apply to the next request), Turn the user turn (1-based).
type DecisionNote struct {
	Request int    `json:"request"`
	Turn    int    `json:"turn"`
	Action  string `json:"action"`
	Skill   string `json:"skill,omitempty"`
	ID      string `json:"id,omitempty"`
	Code    string `json:"code,omitempty"`
	Text    string `json:"text"`
}

// Calibration is how request text becomes tokens for a branch. The part
// of a request the session does not hold (tool definitions, the system
// prompt) is HeaderChars characters; tokens are characters divided by
// CharsPerToken. Method "exact": with 4 characters a token, one header
// length reproduces every recorded prompt size (rounded up, as the
// scripted provider counts); "fit": least squares of recorded prompt
// tokens on request length (real tokenizers); "default": no usable
// recorded usage, header 0 and 4 characters a token.
type Calibration struct {
	Method        string  `json:"method"`
	HeaderChars   int     `json:"headerChars"`
	CharsPerToken float64 `json:"charsPerToken"`
	Requests      int     `json:"requests"` // requests with recorded usage used
}

// Accuracy compares keep-all's rebuilt requests with the recorded usage:
// prompt tokens (input + cacheRead + cacheWrite) and uncached input
// tokens (prompt - cacheRead; the recorded cached figure has no cache
// lifetime, so neither does this comparison).
type Accuracy struct {
	Compared        int     `json:"compared"`
	PromptExact     int     `json:"promptExact"`
	PromptWithin2   int     `json:"promptWithin2Pct"`
	MaxPromptErrPct float64 `json:"maxPromptErrPct"`
	InputExact      int     `json:"inputExact"`
	InputWithin2    int     `json:"inputWithin2Pct"`
	MaxInputErrPct  float64 `json:"maxInputErrPct"`
	// TotalPromptErrPct compares the sums over the branch.
	TotalPromptErrPct float64 `json:"totalPromptErrPct"`
}

// Report is the outcome of a replay.
type Report struct {
	Strategies   []StrategyResult `json:"strategies"`
	Branches     []BranchReport   `json:"branches"`
	Files        int              `json:"files"`
	Bytes        int64            `json:"bytes"`
	TTLSeconds   float64          `json:"cacheTTLSeconds"`
	AllBranches  bool             `json:"allBranches"`
	NoComebacks  bool             `json:"noComebacks,omitempty"`
	AllComebacks bool             `json:"allComebacks,omitempty"`
	Prices       map[string]any   `json:"prices"`
	// Diagnostics are the first diagnostics of each file
	// (session.DefaultMaxDiagnostics); DiagnosticsOmitted counts, for each
	// file with more, those not listed.
	Diagnostics        []session.Diagnostic `json:"diagnostics"`
	DiagnosticsOmitted []OmittedDiagnostics `json:"diagnosticsOmitted,omitempty"`
	// Skipped lists every file (or folder) given or found that was not
	// replayed, with the reason; Files counts those replayed.
	Skipped []Skipped `json:"skipped"`
	// SkillsLoaded lists, by name, the skills the replayed branches load,
	// whether the pack names them or not (LoadedSkill).
	SkillsLoaded []LoadedSkill `json:"skillsLoaded"`
	// Series[i] is strategy i's prompt tokens per request, when asked.
	Series [][]Point `json:"-"`
}

// OmittedDiagnostics counts the diagnostics of a file beyond those the
// report lists.
type OmittedDiagnostics struct {
	File    string `json:"file"`
	Omitted int    `json:"omitted"`
	Total   int    `json:"total"`
}

// Skipped is an input that was not replayed, and why.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// Input is a session file to replay. Found says it was found in a folder
// rather than named: it is replayed only when its first JSON line is a
// session header, as Pi requires (other .jsonl files, such as the request
// logs kept beside recorded sessions, are skipped as not sessions). A file
// named is read whatever its first line, and skipped only when no line of
// it is a session header or entry.
type Input struct {
	Path  string
	Found bool
}

// Outcome is what became of one input.
type Outcome struct {
	// Err is an I/O error: the file could not be read.
	Err error
	// Skipped is why the file was not replayed ("" when it was).
	Skipped string
}

// AddFile reads and replays one session file, named (Input.Found false).
// The error is for I/O only.
func (r *Runner) AddFile(file string) error {
	return r.add(Input{Path: file}, r.read(Input{Path: file})).Err
}

// read reads one input.
func (r *Runner) read(in Input) readFile {
	s, err := session.ReadFile(in.Path, &session.Options{MaxLine: r.opts.MaxLine, RequireHeader: in.Found})
	return readFile{s, err}
}

type readFile struct {
	s   *session.Session
	err error
}

// add replays a file read, or notes why it is skipped.
func (r *Runner) add(in Input, rd readFile) Outcome {
	if rd.err != nil {
		r.Skip(in.Path, rd.err.Error())
		return Outcome{Err: rd.err, Skipped: rd.err.Error()}
	}
	s := rd.s
	why := s.NotSession
	if why == "" && s.Header.Line == 0 && len(s.Entries) == 0 {
		why = "no line of it is a session header or entry"
		if len(s.Diagnostics) > 0 {
			why += " (" + s.Diagnostics[0].String() + ")"
		}
	}
	if why != "" {
		why = "not a session: " + why
		r.Skip(in.Path, why)
		return Outcome{Skipped: why}
	}
	r.AddSession(s)
	return Outcome{}
}

// AddFiles replays files in order, reading the next file while the
// current one is replayed (at most two sessions in memory). after, when
// not nil, is called after each file with what became of it.
func (r *Runner) AddFiles(files []Input, after func(in Input, o Outcome)) {
	ch := make(chan readFile, 1)
	go func() {
		for _, f := range files {
			ch <- r.read(f)
		}
		close(ch)
	}()
	i := 0
	for rd := range ch {
		o := r.add(files[i], rd)
		if after != nil {
			after(files[i], o)
		}
		i++
	}
}

// Skip records an input that is not replayed (an unreadable folder, a file
// that is not a regular file), for the report.
func (r *Runner) Skip(file, reason string) {
	r.skipped = append(r.skipped, Skipped{File: file, Reason: reason})
}

// AddBytes counts input bytes for the report (the CLI adds file sizes).
func (r *Runner) AddBytes(n int64) { r.bytes += n }

// AddSession replays a session read by the caller: its default branch,
// or every leaf with AllBranches.
func (r *Runner) AddSession(s *session.Session) {
	r.files++
	r.learnPrices(s)
	leaves := []*session.Entry{s.Leaf()}
	if r.opts.AllBranches {
		leaves = s.Leaves()
	}
	for _, leaf := range leaves {
		if leaf == nil {
			continue
		}
		r.replayBranch(s, leaf)
	}
	r.diags = append(r.diags, s.Diagnostics...)
	if n := s.DiagnosticCount - len(s.Diagnostics); n > 0 {
		r.omitted = append(r.omitted, OmittedDiagnostics{File: s.Path, Omitted: n, Total: s.DiagnosticCount})
	}
}

// learnPrices sets, for models the table does not name, the prices the
// session's recorded cost implies (cost per token of each usage kind that
// has tokens; the table's multipliers fill in the rest).
func (r *Runner) learnPrices(s *session.Session) {
	type acc struct {
		tok [4]float64
		usd [4]float64
	}
	seen := map[[2]string]*acc{}
	var order [][2]string
	for _, e := range s.Entries {
		m := e.Message
		if m == nil || m.Role != session.RoleAssistant || m.Usage == nil || !m.Usage.HasCost {
			continue
		}
		k := [2]string{m.Provider, m.Model}
		if r.prices.Has(k[0], k[1]) {
			continue
		}
		a := seen[k]
		if a == nil {
			a = &acc{}
			seen[k] = a
			order = append(order, k)
		}
		u := m.Usage
		a.tok[0] += float64(u.Input)
		a.usd[0] += u.Cost.Input
		a.tok[1] += float64(u.Output)
		a.usd[1] += u.Cost.Output
		a.tok[2] += float64(u.CacheRead)
		a.usd[2] += u.Cost.CacheRead
		a.tok[3] += float64(u.CacheWrite)
		a.usd[3] += u.Cost.CacheWrite
	}
	for _, k := range order {
		a := seen[k]
		if a.tok[0] == 0 || a.usd[0] == 0 {
			continue // no input price to anchor on
		}
		per := func(i int) float64 {
			if a.tok[i] == 0 || a.usd[i] == 0 {
				return 0
			}
			return a.usd[i] / a.tok[i] * 1e6
		}
		r.prices.Set(k[0], k[1], pricing.Prices{Input: per(0), Output: per(1), CacheRead: per(2), CacheWrite: per(3)})
	}
}

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
}

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
	k := segKey{lm.key, ph, bv != nil}
	if s, ok := b.segs[k]; ok {
		return s
	}
	var replace func(string) string
	if bridged != "" {
		replace = func(string) string { return bridged }
	}
	if ph != "" {
		if m.Role == session.RoleToolResult {
			replace = func(string) string { return ph }
		} else {
			replace = func(t string) string { return replaceSkillBlock(t, ph) }
		}
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
	ms := rb.b.msgSegment(lm, arch, rb.bv)
	seg := ms.seg
	if id := rb.b.bodyID(lm); id != "" {
		rb.bodies = append(rb.bodies, bodyPos{id, rb.end, seg.Len})
		if ms.body > 0 {
			rb.bbodies = append(rb.bbodies, bodyPos{id, rb.bend, ms.body})
		}
	}
	rb.persist = append(rb.persist, seg)
	rb.end += seg.Len
	rb.bend += ms.size
}

// newBuilder starts the requests of a run: header is the calibrated
// header (tools and system prompt, as the request carries them), base the
// system prompt's length as the bridge counts it.
func (b *branch) newBuilder(header pricing.Segment, base int, bv *bridgeView) *reqBuilder {
	return &reqBuilder{b: b, bv: bv, header: header, persist: []pricing.Segment{header}, end: header.Len,
		bbase: base, bend: base, view: providerView{synth: b.synth}}
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
func (rb *reqBuilder) request(cb *session.ContextBuilder, arch map[string]string,
	inserts map[*session.Entry][]*session.Message, insVersion int, next *session.Entry) (segs, tail []pricing.Segment) {
	msgs := cb.Messages()
	if cb.Compactions != rb.compactions || insVersion != rb.insVersion || !sameArch(arch, rb.arch) || rb.built > len(msgs) {
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
	for _, m := range inserts[next] {
		lm := llmMessage{synth: m, key: m}
		ms := rb.b.msgSegment(lm, arch, rb.bv)
		seg := ms.seg
		if id := rb.b.bodyID(lm); id != "" {
			rb.tailBodies = append(rb.tailBodies, bodyPos{id, off, seg.Len})
			if ms.body > 0 {
				rb.btail = append(rb.btail, bodyPos{id, boff, ms.body})
			}
		}
		off += seg.Len
		boff += ms.size
		tail = append(tail, seg)
	}
	rb.btotal = boff
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

// observed is one keep-all request measured without header.
type observed struct {
	m, p            int // request chars without header; prefix shared with the previous request
	pt, cached      int // recorded prompt and cached tokens
	first, ok       bool
	t               time.Time
	provider, model string
	out             *session.Message
}

// calibrate finds the header length and characters per token that turn
// keep-all's rebuilt requests into the recorded prompt sizes, and measures
// how close they come. It returns the measured requests, from which
// keep-all is priced without rebuilding them.
func (b *branch) calibrate() (Calibration, Accuracy, []observed) {
	type obs = observed
	var all []obs
	cb := session.NewContextBuilder(b.br)
	var prev, prevTail []pricing.Segment
	rb := b.newBuilder(pricing.Segment{}, 0, nil)
	var rec *Recorded
	if b.hasRecords {
		rec = &Recorded{}
	}
	for !cb.Done() {
		e := cb.Peek()
		if m := e.Message; m != nil && m.Role == session.RoleAssistant {
			var arch map[string]string
			if rec != nil {
				arch = rec.Archived()
			}
			segs, tail := rb.request(cb, arch, nil, 0, e)
			o := obs{m: pricing.Length(segs) + pricing.Length(tail), first: prev == nil,
				t: requestTime(e), provider: m.Provider, model: m.Model, out: m}
			if prev != nil {
				o.p = pricing.CommonPrefixSplit(prev, prevTail, segs, tail)
			}
			if usable(m) {
				u := m.Usage
				o.ok, o.pt, o.cached = true, u.Input+u.CacheRead+u.CacheWrite, u.CacheRead
			}
			all = append(all, o)
			prev, prevTail = segs, tail
		}
		cb.Step()
		if rec != nil {
			rec.ObserveEntry(e)
		}
	}
	cal := Calibration{Method: "default", CharsPerToken: 4}
	lo, hi := math.MinInt, math.MaxInt
	var n int
	var sx, sy, sxx, sxy float64
	for _, o := range all {
		if !o.ok {
			continue
		}
		n++
		lo = max(lo, 4*(o.pt-1)+1-o.m)
		hi = min(hi, 4*o.pt-o.m)
		x, y := float64(o.m), float64(o.pt)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	cal.Requests = n
	switch {
	case n == 0:
	case lo <= hi && hi >= 0:
		// Every header in [lo, hi] gives the recorded prompt sizes; the
		// cached figures (floor of header + shared prefix) pick among them.
		cal.Method, cal.HeaderChars = "exact", max(lo, 0)
		best := -1
		for h := max(lo, 0); h <= hi && h < max(lo, 0)+64; h++ {
			hits := 0
			for _, o := range all {
				if o.ok && !o.first && (h+o.p)/4 == o.cached {
					hits++
				}
			}
			if hits > best {
				best, cal.HeaderChars = hits, h
			}
		}
	default:
		cal.Method = "fit"
		den := float64(n)*sxx - sx*sx
		slope := 0.0
		if den > 0 {
			slope = (float64(n)*sxy - sx*sy) / den
		}
		if slope > 0 {
			cal.CharsPerToken = math.Min(math.Max(1/slope, 0.5), 20)
			icpt := (sy - slope*sx) / float64(n)
			cal.HeaderChars = max(0, int(math.Round(icpt*cal.CharsPerToken)))
		} else {
			for _, o := range all {
				if o.ok {
					cal.HeaderChars = max(0, 4*o.pt-o.m)
					break
				}
			}
		}
	}
	var acc Accuracy
	var sumPred, sumRec float64
	for _, o := range all {
		if !o.ok {
			continue
		}
		acc.Compared++
		pred := int(math.Ceil(float64(cal.HeaderChars+o.m) / cal.CharsPerToken))
		cached := 0
		if !o.first {
			cached = int(math.Floor(float64(cal.HeaderChars+o.p) / cal.CharsPerToken))
		}
		sumPred += float64(pred)
		sumRec += float64(o.pt)
		ep := pctErr(pred, o.pt)
		ei := pctErr(pred-cached, o.pt-o.cached)
		if pred == o.pt {
			acc.PromptExact++
		}
		if ep <= 2 {
			acc.PromptWithin2++
		}
		if pred-cached == o.pt-o.cached {
			acc.InputExact++
		}
		if ei <= 2 {
			acc.InputWithin2++
		}
		acc.MaxPromptErrPct = math.Max(acc.MaxPromptErrPct, ep)
		acc.MaxInputErrPct = math.Max(acc.MaxInputErrPct, ei)
	}
	if sumRec > 0 {
		acc.TotalPromptErrPct = math.Abs(sumPred-sumRec) / sumRec * 100
	}
	return cal, acc, all
}

// priceKeepAll prices keep-all from the requests calibrate measured.
func (b *branch) priceKeepAll(cal Calibration, all []observed, branchIdx int, series *[]Point) runOut {
	meter := pricing.NewMeter(pricing.Options{TTL: b.r.opts.TTL, CharsPerToken: cal.CharsPerToken, Prices: b.r.prices})
	for k, o := range all {
		out := outputTokens(o.out, cal)
		c := meter.PriceMeasured(pricing.Request{Time: o.t, Provider: o.provider, Model: o.model, OutputTokens: out},
			cal.HeaderChars+o.m, cal.HeaderChars+o.p)
		if b.r.opts.Series {
			*series = append(*series, Point{Branch: branchIdx, Seq: b.seq0 + k, Tokens: c.PromptTokens, Time: o.t, CostUSD: c.Total})
		}
	}
	return runOut{totals: meter.Totals}
}

// outputTokens is the recorded output, else an estimate from the response.
func outputTokens(m *session.Message, cal Calibration) int {
	if m.Usage != nil && m.Usage.Output > 0 {
		return m.Usage.Output
	}
	return int(math.Ceil(float64(outputChars(m)) / cal.CharsPerToken))
}

func pctErr(got, want int) float64 {
	if got == want {
		return 0
	}
	return math.Abs(float64(got-want)) / math.Max(1, math.Abs(float64(want))) * 100
}

type runOut struct {
	totals                                pricing.Totals
	reloads, orphans, comebacks, archives int
	notes                                 []DecisionNote
}

// run replays the branch under one strategy. A foresight strategy first
// searches the branch for its plan.
func (b *branch) run(spec StrategySpec, cal Calibration, branchIdx int, series *[]Point) runOut {
	if f := spec.search; f != nil {
		var scratch []Point
		limit := math.MaxInt // the largest request a plan may send, in tokens
		price := func(st Strategy) float64 {
			scratch = scratch[:0]
			t := b.runWith(spec, st, cal, branchIdx, &scratch, false).totals
			if t.PeakPromptTokens > limit {
				return math.Inf(1)
			}
			return t.Total
		}
		var allowed, start map[string]moment
		if f.relevance != nil {
			at := &archiveMoments{Strategy: f.relevance.New(), first: map[string]moment{}}
			scratch = scratch[:0]
			ro := b.runWith(*f.relevance, at, cal, branchIdx, &scratch, false)
			allowed = at.first
			if f.peakShare > 0 {
				// Archiving nothing is out of bounds: the search
				// starts from relevance-only's own plan.
				limit = int(float64(ro.totals.PeakPromptTokens) * f.peakShare)
				start = allowed
			}
		}
		return b.runWith(spec, f.strategy(f.search(price, allowed, start), nil), cal, branchIdx, series, false)
	}
	return b.runWith(spec, spec.New(), cal, branchIdx, series, b.r.opts.Decisions)
}

// decisionSource is a strategy that can report the engine's decisions
// (EngineStrategy).
type decisionSource interface {
	setLog(func([]lifecycle.Decision))
	Deferred() []rules.Timing
}

// deduper is a strategy that answers some loads with the "already
// loaded" note: such a load is no copy of the body.
type deduper interface{ Deduped(id string) bool }

// runWith replays the branch under st, a strategy of spec; with notes,
// it also keeps the engine's decisions (runOut.notes).
func (b *branch) runWith(spec StrategySpec, st Strategy, cal Calibration, branchIdx int, series *[]Point, notes bool) runOut {
	eo, _ := st.(EntryObserver)
	dd, _ := st.(deduper)
	meter := pricing.NewMeter(pricing.Options{TTL: b.r.opts.TTL, CharsPerToken: cal.CharsPerToken, Prices: b.r.prices})
	var bv *bridgeView
	loads := b.info.loads
	if spec.Bridge && b.bv != nil {
		bv, loads = b.bv, b.bv.loads
	}
	header := pricing.Segment{Hash: 0x9e3779b97f4a7c15, Len: cal.HeaderChars}
	if bv != nil {
		header.Len = max(0, header.Len+bv.HeaderDelta)
	}
	var out runOut
	inserts := map[*session.Entry][]*session.Message{}
	insVersion := 0
	rb := b.newBuilder(header, bridgeBase(header.Len, bv != nil || b.recordedWithBridge()), bv)
	last := map[string]load{} // skill -> latest load
	inRun := false
	var prevT time.Time
	prevModel := ""
	archivedSeen := map[string]bool{}
	skillOf := map[string]string{} // load id -> skill, for the decision notes
	nReload := 0

	observeLoad := func(l load) {
		if notes {
			skillOf[l.ID] = l.Skill
		}
		if p, ok := last[l.Skill]; ok {
			if _, gone := st.Archived()[p.ID]; gone {
				out.reloads++
			}
		}
		var hash string
		if l.Body != "" {
			hash = lifecycle.HashBody(l.Body) // for the already-loaded dedupe
		}
		st.Observe(lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: l.ID, Skill: l.Skill, Size: int64(l.Size), Kind: l.Kind, Hash: hash}})
		if dd != nil && dd.Deduped(l.ID) {
			return // answered "already loaded": not a copy of the body
		}
		last[l.Skill] = l
	}
	var prevSegs, prevTail []pricing.Segment
	prevLen, number, compactions := 0, 0, 0
	prevSize := 0 // the previous request as sent, in the units the engine is told
	turn := 0     // user turns so far
	// The engine's decisions, when asked (notes): each applies to the
	// next request; a body kept due is noted once a turn.
	src, logging := st.(decisionSource)
	logging = logging && notes
	keptIn := map[string]int{} // load id -> turn it was last noted kept
	if logging {
		src.setLog(func(ds []lifecycle.Decision) {
			for _, d := range ds {
				if n, ok := noteOf(d); ok {
					n.Request, n.Turn = number+1, max(turn, 1)
					out.notes = append(out.notes, n)
				}
			}
		})
		defer src.setLog(nil)
	}
	recorded := 0             // recorded requests priced so far
	reloadsBefore := 0        // out.reloads at the previous point of the series
	var prevUsage rules.Usage // the usage replay priced for the previous request
	havePrevUsage := false
	price := func(cb *session.ContextBuilder, e *session.Entry, t time.Time, provider, model string, outTok int) {
		key := provider + "/" + model
		info := requestInfo{Number: number + 1, ModelChanged: prevModel != "" && key != prevModel,
			Compacted: cb.Compactions != compactions}
		// The engine is told what the bridge tells it: the time since the
		// previous request and a model change, and a cold cache only after
		// a compaction. A pause past the lifetime is the engine's to weigh
		// (cacheAware.coldConfidence), as live; the pricing applies the
		// lifetime whatever the engine believes.
		info.Cold = info.Compacted
		if !prevT.IsZero() && !t.IsZero() {
			info.Since = t.Sub(prevT)
		}
		// The request as it stands before the engine decides: its size,
		// its bodies, and where it first differs from the previous one.
		arch := st.Archived()
		segs, tail := rb.request(cb, arch, inserts, insVersion, e)
		info.Total = pricing.Length(segs) + pricing.Length(tail)
		info.Bodies = rb.positions()
		info.Previous = prevSize
		if spec.Bridge {
			// The bridge measures its own characters of the context
			// (bridgeSize), not the request's JSON.
			info.Total, info.Bodies = rb.btotal, rb.bridgePositions()
		}
		if prevSegs != nil && !spec.Bridge {
			if lcp := pricing.CommonPrefixSplit(prevSegs, prevTail, segs, tail); lcp < prevLen-b.trail.Len {
				info.ChangedFrom = lcp
			}
		}
		req := info.request()
		// The bridge tells the engine the model's cache prices (Pi's
		// registry); replay's are the table's. No lifetime: a session
		// does not record the one its model declared.
		pr := b.r.prices.For(provider, model)
		if r, w, ok := rules.ModelCachePrices(pr.Input, pr.CacheRead, pr.CacheWrite); ok {
			req.Cache = &rules.ModelCache{Model: key, ReadPrice: r, WritePrice: w}
		}
		// The price of a character of input, so that the engine's
		// reasons state their costs in dollars (nothing else reads it).
		if pr.Input > 0 && cal.CharsPerToken > 0 {
			if req.Cache == nil {
				req.Cache = &rules.ModelCache{Model: key}
			}
			req.Cache.UnitUSD = pr.Input / 1e6 / cal.CharsPerToken
		}
		// The usage the provider reported for the previous request is
		// replay's own pricing of it: what a provider with this lifetime
		// would have said.
		if havePrevUsage {
			u := prevUsage
			req.PreviousUsage = &u
		}
		st.Observe(lifecycle.Event{Type: lifecycle.EvRequest, Request: req})
		if logging {
			for _, t := range src.Deferred() {
				if tn, ok := keptIn[t.ID]; ok && tn == turn {
					continue
				}
				keptIn[t.ID] = turn
				out.notes = append(out.notes, DecisionNote{Request: number + 1, Turn: max(turn, 1), Action: "kept",
					Skill: skillOf[t.ID], ID: t.ID, Code: string(t.Code), Text: t.Text})
			}
		}
		if next := st.Archived(); !sameArch(arch, next) {
			arch = next
			segs, tail = rb.request(cb, arch, inserts, insVersion, e)
		}
		archivedBefore := out.archives
		for id := range arch {
			if !archivedSeen[id] && !b.resIDs[id] && (dd == nil || !dd.Deduped(id)) {
				archivedSeen[id] = true
				out.archives++
			}
		}
		c := meter.Price(pricing.Request{Time: t, Provider: provider, Model: model, Segments: segs, Tail: tail, OutputTokens: outTok})
		if b.r.opts.Series {
			*series = append(*series, Point{Branch: branchIdx, Seq: b.seq0 + recorded, Tokens: c.PromptTokens, Time: t,
				CostUSD: c.Total, Archived: out.archives - archivedBefore, Reloaded: out.reloads - reloadsBefore})
			reloadsBefore = out.reloads
		}
		prevT, prevModel = t, key
		prevUsage, havePrevUsage = rules.Usage{CacheRead: int64(c.CacheReadTokens), CacheWrite: int64(c.CacheWriteTokens)}, true
		prevSegs, prevTail, prevLen = segs, tail, c.PromptChars
		prevSize = c.PromptChars // Length(segs) + Length(tail)
		if spec.Bridge {
			prevSize = rb.btotal
		}
		number, compactions = info.Number, cb.Compactions
	}

	// reload adds the request in which the model loads l's skill again
	// before entry e, and the tool call and result it makes.
	reload := func(cb *session.ContextBuilder, e *session.Entry, t time.Time, m *session.Message, l load) {
		nReload++
		pair := reloadPair(l, nReload)
		price(cb, e, t, m.Provider, m.Model, int(math.Ceil(float64(outputChars(pair[0]))/cal.CharsPerToken)))
		inserts[e] = append(inserts[e], pair...)
		insVersion++
		rl := l
		rl.ID = pair[0].Blocks[0].ID
		b.loadIDs[rl.ID] = true
		observeLoad(rl)
	}
	var prompt string
	wantComebacks := false

	cb := session.NewContextBuilder(b.br)
	for !cb.Done() {
		e := cb.Peek()
		m := e.Message
		if m != nil && e.Type == session.TypeMessage {
			switch m.Role {
			case session.RoleUser:
				turn++
				if inRun {
					st.Observe(lifecycle.Event{Type: lifecycle.EvRunEnd})
				}
				st.Observe(lifecycle.Event{Type: lifecycle.EvPrompt, Text: promptText(m)})
				for _, l := range loads[e] {
					observeLoad(l)
				}
				st.Observe(lifecycle.Event{Type: lifecycle.EvRunStart})
				inRun = true
				prompt = promptText(m)
				wantComebacks = spec.Comebacks != nil && !b.r.opts.NoComebacks
			case session.RoleAssistant:
				t := requestTime(e)
				// Comebacks: the turn's prompt asks for a skill whose body
				// is archived; the agent loads it again first, unless the
				// session shows it loading a skill of its choice there.
				for _, c := range b.info.calls[e] {
					if c.LoadOf != "" {
						wantComebacks = false
					}
				}
				if wantComebacks {
					arch := st.Archived()
					archived := func(skill string) bool {
						l, ok := last[skill]
						_, gone := arch[l.ID]
						return ok && gone
					}
					for _, skill := range spec.Comebacks(prompt, archived, b.r.opts.AllComebacks) {
						out.comebacks++
						reload(cb, e, t, m, last[skill])
					}
					wantComebacks = false
				}
				// Orphan uses: a tool call touching the folder of a skill
				// whose body is archived. The model reloads it first.
				for _, c := range b.info.calls[e] {
					arch := st.Archived()
					if len(arch) == 0 {
						break
					}
					for skill, l := range last {
						if _, gone := arch[l.ID]; !gone || c.LoadOf == skill {
							continue
						}
						if !touches(c, b.folders(skill)) {
							continue
						}
						out.orphans++
						reload(cb, e, t, m, l)
						break
					}
				}
				outTok := outputTokens(m, cal)
				if bv != nil {
					outTok = bv.outputTokens(e, cal)
				}
				price(cb, e, t, m.Provider, m.Model, outTok)
				recorded++
			}
		}
		cb.Step()
		if eo != nil {
			eo.ObserveEntry(e)
		}
		if m != nil && m.Role == session.RoleToolResult {
			for _, l := range loads[e] {
				observeLoad(l)
			}
			for _, r := range b.info.resources[e] {
				st.Observe(lifecycle.Event{Type: lifecycle.EvResource, Resource: &lifecycle.Resource{ID: r.ID, Skill: r.Skill, Path: r.Path, Size: int64(r.Size)}})
			}
		}
	}
	if inRun {
		st.Observe(lifecycle.Event{Type: lifecycle.EvRunEnd})
	}
	out.totals = meter.Totals
	return out
}

// noteOf is the DecisionNote of an engine decision worth reading in a
// replay: not the bookkeeping of loads, runs, topics and model state.
func noteOf(d lifecycle.Decision) (DecisionNote, bool) {
	n := DecisionNote{Action: string(d.Action), Skill: d.Skill, ID: d.ID}
	switch d.Action {
	case lifecycle.ActLoad, lifecycle.ActResource, lifecycle.ActRun, lifecycle.ActTopic, lifecycle.ActModelState:
		return n, false
	case lifecycle.ActCacheLifetime:
		if l := d.CacheLifetime; l != nil {
			n.Text = l.Describe()
			if n.Text == "" && l.Reports {
				n.Text = "the provider reports cache reads; nothing learned of the lifetime yet"
			}
		}
	case lifecycle.ActModel, lifecycle.ActModelRestore, lifecycle.ActModelReport, lifecycle.ActModelNote:
		if d.Model != nil {
			n.Text = d.Model.Message
		}
	case lifecycle.ActEnabled:
		n.Text = "archiving switched off"
		if d.On != nil && *d.On {
			n.Text = "archiving switched on"
		}
	}
	if d.Reason != nil {
		n.Code, n.Text = string(d.Reason.Code), d.Reason.Text
	}
	if t := d.Timing; t != nil {
		n.Code = string(t.Code)
		if n.Text != "" && t.Text != "" {
			n.Text += "; "
		}
		n.Text += t.Text
	}
	if k := len(d.Resources); k > 0 {
		n.Text += " (with " + lifecycle.FilesOfFolder(k) + ")"
	}
	return n, true
}

// folders lists where a skill's files live: the folders its loads named,
// and <dir>/<name> for each pack or orphan folder.
func (b *branch) folders(skill string) []string {
	fs := append([]string(nil), b.info.folders[skill]...)
	if p := b.r.opts.Pack; p != nil {
		for _, d := range p.Dirs {
			fs = append(fs, path.Join(d, skill))
		}
	}
	return fs
}

// reloadIDPrefix starts the tool call id of every reload replay adds.
const reloadIDPrefix = "skill-lifecycle-reload-"

// isReload reports whether a load's id is one of replay's reloads.
func isReload(id string) bool { return strings.HasPrefix(id, reloadIDPrefix) }

// reloadPair is the tool call and result a model following the protocol
// makes to load an archived skill again: the same way it was loaded.
func reloadPair(l load, n int) []*session.Message {
	id := reloadIDPrefix + strconv.Itoa(n)
	name, args := "skill", map[string]string{"name": l.Skill}
	if l.Kind == lifecycle.ByRead && l.Path != "" {
		name, args = "read", map[string]string{"path": l.Path}
	}
	raw, _ := json.Marshal(args)
	call := &session.Message{Role: session.RoleAssistant, StopReason: "toolUse",
		Blocks: []session.Block{{Type: "toolCall", ID: id, Name: name, Arguments: string(raw)}}}
	result := &session.Message{Role: session.RoleToolResult, ToolCallID: id, ToolName: name,
		Blocks: []session.Block{{Type: "text", Text: l.Body}}}
	return []*session.Message{call, result}
}

// Report returns the results so far, with percentages of keep-all.
func (r *Runner) Report() *Report {
	rep := &Report{Branches: r.branches, Files: r.files, Bytes: r.bytes, TTLSeconds: r.opts.TTL.Seconds(), AllBranches: r.opts.AllBranches, NoComebacks: r.opts.NoComebacks, AllComebacks: r.opts.AllComebacks && !r.opts.NoComebacks,
		Diagnostics: r.diags, DiagnosticsOmitted: r.omitted, Skipped: append([]Skipped{}, r.skipped...), Prices: map[string]any{}}
	base := r.results[0]
	for _, s := range r.results {
		if base.CostUSD > 0 {
			s.CostPct = s.CostUSD / base.CostUSD * 100
		}
		if base.PeakContext > 0 {
			s.PeakPct = float64(s.PeakContext) / float64(base.PeakContext) * 100
		}
		rep.Strategies = append(rep.Strategies, s)
	}
	for _, k := range r.prices.ModelNames() {
		rep.Prices[k] = r.prices.Models[k]
	}
	rep.Prices["default"] = r.prices.Default
	if r.opts.Series {
		rep.Series = r.series
	}
	rep.SkillsLoaded = r.loadedSkills()
	return rep
}
