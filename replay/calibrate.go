package replay

import (
	"math"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/session"
)

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
			segs, tail := rb.request(cb, arch, nil, nil, 0, e)
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
