package replay

import (
	"encoding/json"
	"math"

	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
)

// The report's JSON (replay --json) rounds its figures to what they can
// tell (docs/replay.md, "Output"): money to 6 decimals of a dollar,
// percentages of keep-all to 0.1, the accuracy's error percentages to
// 0.001 (they show agreement well under 0.1%), characters per token to
// 0.001 and prices (USD per million tokens) to 6 decimals. Token and
// character counts are integers already. The Go values keep full
// precision.

// Rounding steps, as decimals.
const (
	usdDecimals     = 6
	pctDecimals     = 1
	errPctDecimals  = 3
	ratioDecimals   = 3
	priceDecimals   = 6
	secondsDecimals = 3
)

// roundTo rounds v to d decimals (NaN and infinities unchanged: encoding
// them fails whatever).
func roundTo(v float64, d int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow10(d)
	r := math.Round(v*p) / p
	if r == 0 {
		return 0 // no "-0"
	}
	return r
}

// MarshalJSON writes the report with its figures rounded.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	p := plain(r)
	p.TTLSeconds = roundTo(p.TTLSeconds, secondsDecimals)
	if r.Prices != nil {
		p.Prices = make(map[string]any, len(r.Prices))
		for k, v := range r.Prices {
			if pr, ok := v.(pricing.Prices); ok {
				v = pricing.Prices{Input: roundTo(pr.Input, priceDecimals), Output: roundTo(pr.Output, priceDecimals),
					CacheRead: roundTo(pr.CacheRead, priceDecimals), CacheWrite: roundTo(pr.CacheWrite, priceDecimals)}
			}
			p.Prices[k] = v
		}
	}
	return json.Marshal(p)
}

// MarshalJSON writes the strategy's totals rounded.
func (s StrategyResult) MarshalJSON() ([]byte, error) {
	type plain StrategyResult
	p := plain(s)
	p.CostUSD = roundTo(p.CostUSD, usdDecimals)
	p.CostPct = roundTo(p.CostPct, pctDecimals)
	p.PeakPct = roundTo(p.PeakPct, pctDecimals)
	return json.Marshal(p)
}

// MarshalJSON writes the branch's figures rounded.
func (b BranchReport) MarshalJSON() ([]byte, error) {
	type plain BranchReport
	p := plain(b)
	p.RecordedCostUSD = roundTo(p.RecordedCostUSD, usdDecimals)
	return json.Marshal(p)
}

// MarshalJSON writes the strategy's cost on the branch rounded.
func (s BranchStrategy) MarshalJSON() ([]byte, error) {
	type plain BranchStrategy
	p := plain(s)
	p.CostUSD = roundTo(p.CostUSD, usdDecimals)
	return json.Marshal(p)
}

// MarshalJSON writes the calibration with its ratio rounded.
func (c Calibration) MarshalJSON() ([]byte, error) {
	type plain Calibration
	p := plain(c)
	p.CharsPerToken = roundTo(p.CharsPerToken, ratioDecimals)
	return json.Marshal(p)
}

// MarshalJSON writes the accuracy with its error percentages rounded.
func (a Accuracy) MarshalJSON() ([]byte, error) {
	type plain Accuracy
	p := plain(a)
	p.MaxPromptErrPct = roundTo(p.MaxPromptErrPct, errPctDecimals)
	p.MaxInputErrPct = roundTo(p.MaxInputErrPct, errPctDecimals)
	p.TotalPromptErrPct = roundTo(p.TotalPromptErrPct, errPctDecimals)
	return json.Marshal(p)
}
