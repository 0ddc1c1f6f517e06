// Package pricing prices a sequence of model requests as a provider with a
// prefix cache would.
//
//	m := pricing.NewMeter(pricing.Options{TTL: 5 * time.Minute})
//	c := m.Price(pricing.Request{Time: t, Model: "m", Segments: pricing.Segments(system, turn)})
//	// c.CacheReadTokens, c.CacheWriteTokens, c.Total (USD); m.Totals sums them
//
// Each request is a list of segments (typically one per message, each
// known by a hash and a length in characters); the part of a request
// identical to the start of the previous request is read from the cache,
// the rest is written to it. The cache is cold for the first request,
// after a gap longer than the cache lifetime and after a model switch.
// Characters become tokens by a fixed ratio (4 by default, rounded as the
// end-to-end tests' scripted provider does). Prices are per model, in USD
// per million tokens, with cache read and write defaulting to multiples of
// the input price (ParseTable reads a prices file). It does no I/O and is
// shared by replay and the live benchmark.
package pricing

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"time"
	"unicode/utf8"
)

// Segment is one chunk of a request's serialised prompt.
type Segment struct {
	Hash uint64 // identity of the text: equal texts have equal hashes
	Len  int    // length in characters (Unicode code points)
	// Text is optional: the segment's text, or a prefix of it. When the
	// first differing segments of two requests both carry text, the common
	// prefix inside them is counted to the character, up to the shorter
	// Text (exact whenever the texts differ within it); otherwise it
	// counts as zero.
	Text string
}

// TextSegment returns the segment of s, keeping the text.
func TextSegment(s string) Segment {
	h := fnv.New64a()
	h.Write([]byte(s))
	return Segment{Hash: h.Sum64(), Len: utf8.RuneCountInString(s), Text: s}
}

// Segments splits nothing: it is a convenience turning strings into
// segments, one each.
func Segments(parts ...string) []Segment {
	out := make([]Segment, len(parts))
	for i, p := range parts {
		out[i] = TextSegment(p)
	}
	return out
}

// Length is the total length of segs in characters.
func Length(segs []Segment) int {
	n := 0
	for _, s := range segs {
		n += s.Len
	}
	return n
}

func same(a, b *Segment) bool {
	return a.Hash == b.Hash && a.Len == b.Len && (a.Text == "" || b.Text == "" || a.Text == b.Text)
}

// CommonPrefix is the number of characters shared by the starts of a and
// b: whole equal segments, then the common prefix of the first differing
// pair when both carry their text. It costs O(segments) plus the length of
// that one common prefix.
func CommonPrefix(a, b []Segment) int { return CommonPrefixSplit(a, nil, b, nil) }

// CommonPrefixSplit is CommonPrefix of the concatenations a+aTail and
// b+bTail, without building them.
func CommonPrefixSplit(a, aTail, b, bTail []Segment) int {
	at := func(s, tail []Segment, i int) *Segment {
		if i < len(s) {
			return &s[i]
		}
		return &tail[i-len(s)]
	}
	na, nb := len(a)+len(aTail), len(b)+len(bTail)
	n, i := 0, 0
	// Slices over the same memory share their first elements: only sum.
	if len(a) > 0 && len(b) > 0 && &a[0] == &b[0] {
		for ; i < len(a) && i < len(b); i++ {
			n += a[i].Len
		}
	}
	for ; i < na && i < nb; i++ {
		x, y := at(a, aTail, i), at(b, bTail, i)
		if same(x, y) {
			n += x.Len
			continue
		}
		if x.Text != "" && y.Text != "" {
			n += textPrefix(x.Text, y.Text)
		}
		break
	}
	return n
}

// textPrefix counts the code points of the longest common prefix.
func textPrefix(a, b string) int {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	for k > 0 && k < len(a) && !utf8.RuneStart(a[k]) { // back up to a whole rune
		k--
	}
	return utf8.RuneCountInString(a[:k])
}

// Prices are USD per million tokens. A zero CacheRead or CacheWrite means
// "the table's multiplier times Input".
type Prices struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead,omitempty"`
	CacheWrite float64 `json:"cacheWrite,omitempty"`
}

// Default multipliers of the input price.
const (
	DefaultReadMultiplier  = 0.1
	DefaultWriteMultiplier = 1.25
)

// DefaultPrices apply to models the table does not name (a mid-range
// model's list price; results relative to a baseline do not depend on it).
var DefaultPrices = Prices{Input: 3, Output: 15}

// Table holds prices per model. Model keys are "provider/id" or just
// "id"; the longer key wins.
type Table struct {
	Default         Prices            `json:"default"`
	Models          map[string]Prices `json:"models,omitempty"`
	ReadMultiplier  float64           `json:"readMultiplier,omitempty"`
	WriteMultiplier float64           `json:"writeMultiplier,omitempty"`
}

// NewTable returns a table with the default prices and multipliers.
func NewTable() *Table {
	return &Table{Default: DefaultPrices, Models: map[string]Prices{},
		ReadMultiplier: DefaultReadMultiplier, WriteMultiplier: DefaultWriteMultiplier}
}

// ParseTable reads a prices file:
//
//	{"default": {"input": 3, "output": 15},
//	 "readMultiplier": 0.1, "writeMultiplier": 1.25,
//	 "models": {"anthropic/claude-sonnet-4-5": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}}
//
// Missing keys keep their defaults; unknown keys are an error naming them.
func ParseTable(data []byte) (*Table, error) {
	t := NewTable()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	for k, v := range raw {
		var err error
		switch k {
		case "default":
			err = json.Unmarshal(v, &t.Default)
		case "models":
			err = json.Unmarshal(v, &t.Models)
		case "readMultiplier":
			err = json.Unmarshal(v, &t.ReadMultiplier)
		case "writeMultiplier":
			err = json.Unmarshal(v, &t.WriteMultiplier)
		default:
			err = fmt.Errorf("unknown key")
		}
		if err != nil {
			return nil, fmt.Errorf("prices: key %q: %v", k, err)
		}
	}
	if t.Models == nil {
		t.Models = map[string]Prices{}
	}
	for name, p := range t.Models {
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return nil, fmt.Errorf("prices: model %q: negative price", name)
		}
	}
	return t, nil
}

// Has reports whether the table names the model (provider may be "").
func (t *Table) Has(provider, id string) bool {
	_, ok := t.lookup(provider, id)
	return ok
}

func (t *Table) lookup(provider, id string) (Prices, bool) {
	if p, ok := t.Models[provider+"/"+id]; ok && provider != "" {
		return p, true
	}
	p, ok := t.Models[id]
	return p, ok
}

// Set records the prices of a model under "provider/id".
func (t *Table) Set(provider, id string, p Prices) {
	if t.Models == nil {
		t.Models = map[string]Prices{}
	}
	key := id
	if provider != "" {
		key = provider + "/" + id
	}
	t.Models[key] = p
}

// For returns the resolved prices of a model: cache prices filled in from
// the multipliers when not given.
func (t *Table) For(provider, id string) Prices {
	p, ok := t.lookup(provider, id)
	if !ok {
		p = t.Default
	}
	rm, wm := t.ReadMultiplier, t.WriteMultiplier
	if rm == 0 {
		rm = DefaultReadMultiplier
	}
	if wm == 0 {
		wm = DefaultWriteMultiplier
	}
	if p.CacheRead == 0 {
		p.CacheRead = rm * p.Input
	}
	if p.CacheWrite == 0 {
		p.CacheWrite = wm * p.Input
	}
	return p
}

// ModelNames lists the table's model keys, sorted.
func (t *Table) ModelNames() []string {
	out := make([]string, 0, len(t.Models))
	for k := range t.Models {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Request is one model request to price.
type Request struct {
	Time            time.Time // when it was sent; zero = unknown (no expiry applied)
	Provider, Model string
	Segments        []Segment
	// Tail follows Segments. Keeping the last segments apart lets a caller
	// reuse one growing Segments slice across requests: the meter keeps
	// both until the next call, and the caller must only append to
	// Segments (never overwrite what an earlier request covered).
	Tail              []Segment
	OutputTokens      int
	ExtraPromptTokens int // tokens outside the segments, added to the written part (e.g. images)
}

// Options of a Meter.
type Options struct {
	// TTL is the cache lifetime: a request more than TTL after the
	// previous one finds the cache cold. 0 means the cache never expires.
	TTL time.Duration
	// CharsPerToken converts characters to tokens: prompt tokens are
	// ceil(chars / CharsPerToken), cached tokens floor(prefix /
	// CharsPerToken). 0 means 4.
	CharsPerToken float64
	Prices        *Table // nil means NewTable()
	// BreakTolerance: a warm request that reuses all but at most this many
	// characters of the previous one is not counted as a prefix break
	// (closing brackets of a serialised message list change on every
	// request). 0 means 16.
	BreakTolerance int
}

// Cold reasons.
const (
	Warm       = ""
	ColdFirst  = "first"
	ColdExpiry = "expired"
	ColdModel  = "model-switch"
	ColdReset  = "reset"
)

// Cost is the priced request.
type Cost struct {
	PromptChars, PrefixChars                        int // PrefixChars: shared with the previous request (before coldness)
	LostChars                                       int // characters of the previous request not shared (0 when cold)
	PromptTokens, CacheReadTokens, CacheWriteTokens int
	OutputTokens                                    int
	Cold                                            string  // Warm or a Cold* reason
	Input, CacheRead, CacheWrite, Output, Total     float64 // USD; Input is always 0 (every prompt token is read or written)
}

// Totals sums costs.
type Totals struct {
	Requests                                        int
	PromptTokens, CacheReadTokens, CacheWriteTokens int
	OutputTokens                                    int
	PeakPromptTokens                                int
	ColdRequests                                    int
	PrefixBreaks                                    int // warm requests that did not reuse the previous request (beyond BreakTolerance)
	BrokenPrefixChars                               int // characters of the previous request those breaks did not reuse
	CacheRead, CacheWrite, Output, Total            float64
}

// Add accumulates c.
func (t *Totals) Add(c Cost) {
	t.Requests++
	t.PromptTokens += c.PromptTokens
	t.CacheReadTokens += c.CacheReadTokens
	t.CacheWriteTokens += c.CacheWriteTokens
	t.OutputTokens += c.OutputTokens
	t.PeakPromptTokens = max(t.PeakPromptTokens, c.PromptTokens)
	if c.Cold != Warm {
		t.ColdRequests++
	}
	t.CacheRead += c.CacheRead
	t.CacheWrite += c.CacheWrite
	t.Output += c.Output
	t.Total += c.Total
}

// Meter prices requests in order, remembering the previous one.
type Meter struct {
	opts      Options
	prev      []Segment
	prevTail  []Segment
	prevLen   int
	prevTime  time.Time
	prevModel string
	started   bool
	Totals    Totals
}

// NewMeter returns a meter whose cache starts cold.
func NewMeter(opts Options) *Meter {
	if opts.CharsPerToken <= 0 {
		opts.CharsPerToken = 4
	}
	if opts.Prices == nil {
		opts.Prices = NewTable()
	}
	if opts.BreakTolerance == 0 {
		opts.BreakTolerance = 16
	}
	return &Meter{opts: opts}
}

// Reset makes the cache cold (e.g. a new session).
func (m *Meter) Reset() { m.started = false; m.prev, m.prevTail = nil, nil }

// Tokens converts a prompt length in characters to tokens.
func (m *Meter) Tokens(chars int) int { return int(math.Ceil(float64(chars) / m.opts.CharsPerToken)) }

// Price prices r against the previous request and remembers r. The
// segments are kept (not copied) until the next call.
func (m *Meter) Price(r Request) Cost {
	prompt := Length(r.Segments) + Length(r.Tail)
	prefix := 0
	if m.started {
		prefix = CommonPrefixSplit(m.prev, m.prevTail, r.Segments, r.Tail)
	}
	c := m.PriceMeasured(r, prompt, prefix)
	m.prev, m.prevTail = r.Segments, r.Tail
	return c
}

// PriceMeasured prices a request whose length and prefix shared with the
// previous request the caller has measured (r.Segments and r.Tail are
// ignored). Do not mix with Price on one meter.
func (m *Meter) PriceMeasured(r Request, promptChars, prefixChars int) Cost {
	c := Cost{PromptChars: promptChars, OutputTokens: r.OutputTokens}
	model := r.Provider + "/" + r.Model
	switch {
	case !m.started:
		c.Cold = ColdFirst
	case model != m.prevModel:
		c.Cold = ColdModel
	case m.opts.TTL > 0 && !r.Time.IsZero() && !m.prevTime.IsZero() && r.Time.Sub(m.prevTime) > m.opts.TTL:
		c.Cold = ColdExpiry
	}
	if m.started {
		c.PrefixChars = prefixChars
	}
	cpt := m.opts.CharsPerToken
	c.PromptTokens = int(math.Ceil(float64(c.PromptChars)/cpt)) + r.ExtraPromptTokens
	if c.Cold == Warm {
		c.CacheReadTokens = int(math.Floor(float64(c.PrefixChars) / cpt))
		c.LostChars = m.prevLen - c.PrefixChars
		if c.LostChars > m.opts.BreakTolerance {
			m.Totals.PrefixBreaks++
			m.Totals.BrokenPrefixChars += c.LostChars
		}
	}
	c.CacheWriteTokens = c.PromptTokens - c.CacheReadTokens
	p := m.opts.Prices.For(r.Provider, r.Model)
	c.CacheRead = float64(c.CacheReadTokens) * p.CacheRead / 1e6
	c.CacheWrite = float64(c.CacheWriteTokens) * p.CacheWrite / 1e6
	c.Output = float64(c.OutputTokens) * p.Output / 1e6
	c.Total = c.CacheRead + c.CacheWrite + c.Output
	m.Totals.Add(c)
	m.prevLen, m.prevTime, m.prevModel, m.started = c.PromptChars, r.Time, model, true
	return c
}
