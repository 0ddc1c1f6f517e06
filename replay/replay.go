package replay

import (
	"hash/maphash"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
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
