//go:build e2e

package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/tests/e2e"
)

// CacheTTL is the cache lifetime of the second pricing.
const CacheTTL = 5 * time.Minute

// Figures are one run's measurements. Costs are in USD at the scripted
// model's prices (input 3, output 15, cache read 0.30 = 0.1×, cache write
// 3.75 = 1.25× per million tokens), with 4 characters of the usage string a
// token, as the harness's provider counts.
type Figures struct {
	Requests         int      `json:"requests"`
	CostUSD          float64  `json:"costUSD"`   // no cache lifetime
	CostUSD5m        float64  `json:"costUSD5m"` // 5-minute cache lifetime
	PeakChars        int      `json:"peakChars"`
	PromptChars      int      `json:"promptChars"`
	CacheReadTokens  int      `json:"cacheReadTokens"`
	CacheWriteTokens int      `json:"cacheWriteTokens"`
	OutputTokens     int      `json:"outputTokens"`
	ColdRequests5m   int      `json:"coldRequests5m"`
	PrefixBreaks     int      `json:"prefixBreaks"`
	BrokenChars      int      `json:"brokenPrefixChars"`
	Breaks           []Break  `json:"breaks,omitempty"`
	Loads            int      `json:"loads"`   // skill loads, first of each skill
	Reloads          int      `json:"reloads"` // loads of a skill loaded before
	Comebacks        int      `json:"comebacks"`
	ComebackReloads  int      `json:"comebackReloads"` // comebacks that found the body archived
	Stranded         int      `json:"stranded"`        // comebacks that could not get the body back
	OrphanUses       int      `json:"orphanUses"`      // reads of a skill's file with its body archived
	OrphanStranded   int      `json:"orphanStranded"`  // of those, the ones the agent was not told of
	NoteChars        int      `json:"noteChars"`       // characters of the orphan notes
	Problems         []string `json:"problems,omitempty"`
	// UsageMismatches counts requests whose pricing (no lifetime, or the
	// mode's CacheTTL when the provider expired its cache) differs from
	// what the provider reported: the two count the same way, so it must
	// be 0.
	UsageMismatches int `json:"usageMismatches"`
}

// Break is a request whose shared prefix with the previous one ended
// before the previous request's end.
type Break struct {
	Request   int      `json:"request"`
	Turn      int      `json:"turn"`
	Message   int      `json:"message"` // index of the first message that differs
	Messages  int      `json:"messages"`
	LostChars int      `json:"lostChars"`
	Cause     string   `json:"cause"`
	Archived  []string `json:"archived,omitempty"` // skills newly replaced by placeholders
	// Reasons are the engine's recorded reasons for those archivals (from
	// the bridge's session entries), e.g. "superseded-mid-run by add-go-test".
	Reasons []string `json:"reasons,omitempty"`
}

// archiveRecord is one archive decision the bridge recorded in the session.
type archiveRecord struct {
	Skill, Why string
	At         time.Time
	used       bool
}

// archiveRecords reads the bridge's archive decisions from a session file,
// in order; a missing or unreadable file gives none.
func archiveRecords(session string) []archiveRecord {
	b, err := os.ReadFile(session)
	if err != nil {
		return nil
	}
	var out []archiveRecord
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e struct {
			Type, CustomType string
			Timestamp        time.Time
			Data             struct {
				Action, Skill string
				Reason        struct{ Code, By string }
			}
		}
		if json.Unmarshal(line, &e) != nil || e.Type != "custom" || e.CustomType != host.RecordType || e.Data.Action != "archive" {
			continue
		}
		why := e.Data.Reason.Code
		if e.Data.Reason.By != "" {
			why += " by " + e.Data.Reason.By
		}
		out = append(out, archiveRecord{Skill: e.Data.Skill, Why: why, At: e.Timestamp})
	}
	return out
}

// Measure prices a run with replay/pricing, with no cache lifetime and with
// CacheTTL, finds its prefix breaks and counts the agent's events.
func Measure(run *Run) Figures {
	var f Figures
	f.Requests = len(run.Requests)
	m0 := pricing.NewMeter(pricing.Options{CharsPerToken: 4})
	m5 := pricing.NewMeter(pricing.Options{CharsPerToken: 4, TTL: CacheTTL})
	var mw *pricing.Meter // the provider's own lifetime, when it has one
	if run.Mode.CacheTTL > 0 {
		mw = pricing.NewMeter(pricing.Options{CharsPerToken: 4, TTL: run.Mode.CacheTTL})
	}
	for i, r := range run.Requests {
		req := func() pricing.Request {
			return pricing.Request{Time: r.VTime, Provider: e2e.ProviderName, Model: r.Model,
				Segments: []pricing.Segment{pricing.TextSegment(r.S)}, OutputTokens: r.Usage.CompletionTokens}
		}
		c := m0.Price(req())
		m5.Price(req())
		cu := c
		if mw != nil {
			// The provider's cache expired on the virtual timeline.
			cu = mw.Price(req())
		}
		if cu.PromptTokens != r.Usage.PromptTokens || cu.CacheReadTokens != r.Usage.CachedTokens {
			f.UsageMismatches++
		}
		f.PromptChars += r.Chars
		f.PeakChars = max(f.PeakChars, r.Chars)
		if i > 0 && c.Cold == pricing.Warm && c.LostChars > 16 {
			b := diagnose(run.Requests[i-1].Request, r.Request)
			b.Request, b.Turn, b.LostChars = r.Index, r.Turn, c.LostChars
			f.Breaks = append(f.Breaks, b)
		}
	}
	recs := archiveRecords(run.SessionFile)
	for i := range f.Breaks {
		b := &f.Breaks[i]
		at := run.Requests[0].VTime
		for _, r := range run.Requests {
			if r.Index == b.Request {
				at = r.VTime
			}
		}
		for _, sk := range b.Archived {
			// The latest unused decision about sk before the request.
			why, pick := "no record", -1
			for k, rec := range recs {
				if rec.Skill == sk && !rec.used && !rec.At.After(at) {
					pick = k
				}
			}
			if pick >= 0 {
				recs[pick].used = true
				why = recs[pick].Why
			}
			b.Reasons = append(b.Reasons, sk+": "+why)
		}
		if len(b.Reasons) > 0 {
			b.Cause += " (" + strings.Join(b.Reasons, "; ") + ")"
		}
	}
	f.CostUSD, f.CostUSD5m = m0.Totals.Total, m5.Totals.Total
	f.CacheReadTokens, f.CacheWriteTokens, f.OutputTokens = m0.Totals.CacheReadTokens, m0.Totals.CacheWriteTokens, m0.Totals.OutputTokens
	f.PrefixBreaks, f.BrokenChars = m0.Totals.PrefixBreaks, m0.Totals.BrokenPrefixChars
	f.ColdRequests5m = m5.Totals.ColdRequests
	for _, e := range run.Events {
		switch e.Kind {
		case "load":
			f.Loads++
		case "reload":
			f.Reloads++
		case "comeback-kept":
			f.Comebacks++
		case "comeback-reload":
			f.Comebacks++
			f.ComebackReloads++
		case "stranded":
			f.Stranded++
			f.Problems = append(f.Problems, fmt.Sprintf("turn %d request %d: %s stranded: %s", e.Turn, e.Request, e.Skill, e.Detail))
		case "orphan-noted":
			f.OrphanUses++
			n, _ := strconv.Atoi(e.Detail)
			f.NoteChars += n
		case "orphan-stranded":
			f.OrphanUses++
			f.OrphanStranded++
		case "problem":
			f.Problems = append(f.Problems, fmt.Sprintf("turn %d request %d: %s %s", e.Turn, e.Request, e.Skill, e.Detail))
		}
	}
	return f
}

// diagnose names what changed between two consecutive requests.
func diagnose(prev, cur *e2e.Request) Break {
	b := Break{Messages: len(prev.Messages)}
	if !sameRaw(prev.Tools, cur.Tools) {
		b.Cause = "tool list changed"
		return b
	}
	j := 0
	for j < len(prev.Messages) && j < len(cur.Messages) && sameMessage(prev.Messages[j], cur.Messages[j]) {
		j++
	}
	b.Message = j
	if j == 0 {
		b.Cause = "system prompt changed"
		return b
	}
	seen := map[string]bool{}
	for k := j; k < len(prev.Messages) && k < len(cur.Messages); k++ {
		was := placeholders(prev.Messages[k].Text())
		for _, s := range placeholders(cur.Messages[k].Text()) {
			if !contains(was, s) && !seen[s] {
				seen[s] = true
				b.Archived = append(b.Archived, s)
			}
		}
	}
	sort.Strings(b.Archived)
	if len(b.Archived) > 0 {
		b.Cause = fmt.Sprintf("archived %s at message %d of %d", strings.Join(b.Archived, ", "), j, len(prev.Messages))
	} else if j < len(prev.Messages) {
		b.Cause = fmt.Sprintf("message %d of %d (%s) changed", j, len(prev.Messages), prev.Messages[j].Role)
	} else {
		b.Cause = "previous request's end changed"
	}
	return b
}

func placeholders(text string) []string {
	var out []string
	for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameRaw(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameMessage(a, b e2e.Message) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
