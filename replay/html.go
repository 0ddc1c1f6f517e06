package replay

import (
	"fmt"
	"html"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
)

// HTMLAbout is what the page says of how it was made, beyond the report:
// the binary, the command line and the skill pack.
type HTMLAbout struct {
	Version    string   // the version line (skill-lifecycle --version)
	Args       []string // the command's arguments, after "skill-lifecycle"
	Pack       string   // the --skills folder ("" when none)
	PackSkills int      // the skills found in it
}

// palette has one colour per strategy (cycled): keep-all grey, then
// colours that stay apart for the common colour blindnesses.
var palette = []string{"#666666", "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#8c564b"}

// maxChartPoints bounds the points drawn per strategy: larger series keep
// the largest request (or the last cumulative cost) of each bucket.
const maxChartPoints = 2000

// HTML renders a self-contained page (inline CSS and SVG, no script): the
// settings that made the report, the strategies' table, a chart of the
// context (prompt tokens) of every request per strategy with its archives
// and reloads marked, a chart of each strategy's cumulative cost, both
// with the sessions labelled, and a table per session. The elements a
// reader (or a test) looks for carry classes and data attributes:
// series (data-strategy), marker archive / marker reload (data-count),
// session-band and session-label (data-session), ytick, end-label.
func HTML(rep *Report, about HTMLAbout) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>skill-lifecycle replay</title>\n")
	b.WriteString("<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}" +
		"table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}" +
		"td:first-child,th:first-child,td.name,th.name{text-align:left}th,td{white-space:nowrap}table.settings td{text-align:left;white-space:normal}table.settings th{text-align:left;font-weight:600;white-space:nowrap}" +
		"code{font:12px ui-monospace,monospace;word-break:break-all}svg{display:block;max-width:100%;height:auto;margin:.5em 0 1.5em}" +
		"svg text{font:11px system-ui,sans-serif;fill:#333}svg .title{font-weight:600}.note{color:#555;max-width:60em}</style></head><body>\n")
	b.WriteString("<h1>skill-lifecycle replay</h1>\n")
	requests := 0
	if len(rep.Strategies) > 0 {
		requests = rep.Strategies[0].Requests
	}
	fmt.Fprintf(&b, "<p class=\"note\">%d %s, %d recorded model requests, priced under prefix-cache pricing for each strategy; keep-all archives nothing and is the 100%% baseline.</p>\n",
		len(rep.Branches), pluralWord(len(rep.Branches), "session", "sessions"), requests)

	writeSettings(&b, rep, about)

	b.WriteString("<h2 id=\"strategies\">Strategies</h2>\n<table><tr><th>strategy</th><th>cost USD</th><th>cost %</th><th>peak context tokens</th><th>peak %</th><th>archives</th><th>reloads</th><th>comebacks</th><th>orphan uses</th><th>requests</th><th>sessions</th></tr>\n")
	for i, s := range rep.Strategies {
		fmt.Fprintf(&b, "<tr><td class=\"name\"><span style=\"color:%s\">&#9632;</span> %s</td><td>%.4f</td><td>%.1f%%</td><td>%d</td><td>%.1f%%</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>\n",
			colour(i), html.EscapeString(s.Name), s.CostUSD, s.CostPct, s.PeakContext, s.PeakPct, s.Archives, s.Reloads, s.Comebacks, s.OrphanUses, s.Requests, s.Sessions)
	}
	b.WriteString("</table>\n")

	g := newGeometry(rep)
	b.WriteString("<h2 id=\"context\">Context per request</h2>\n<p class=\"note\">Prompt tokens of every model request, in session order, one line per strategy. " +
		"Where a line drops below keep-all's, bodies were archived: a triangle marks the request from which bodies are archived, a circle the request in which an archived skill is back (the agent loaded it again). " +
		"Sessions are the shaded bands, numbered as in the table at the end.</p>\n")
	b.WriteString(contextChart(rep, g))
	b.WriteString("\n<h2 id=\"cost\">Cumulative cost</h2>\n<p class=\"note\">Each strategy's cost so far, in USD, over the same requests; the label at the end gives the total and its share of keep-all's.</p>\n")
	b.WriteString(costChart(rep, g))

	b.WriteString("\n<h2 id=\"sessions\">Sessions</h2>\n<table><tr><th>#</th><th class=\"name\">session</th><th>requests</th><th>calibration</th><th>prompt tokens exact</th><th>recorded USD</th>")
	for i, s := range rep.Strategies {
		fmt.Fprintf(&b, "<th><span style=\"color:%s\">&#9632;</span> %s USD</th>", colour(i), html.EscapeString(s.Name))
	}
	b.WriteString("</tr>\n")
	for i, br := range rep.Branches {
		fmt.Fprintf(&b, "<tr><td>%d</td><td class=\"name\">%s</td><td>%d</td><td>%s</td><td>%d/%d</td><td>%.4f</td>", i+1, html.EscapeString(sessionName(rep, br)),
			br.Requests, html.EscapeString(calText(br.Calibration)), br.Accuracy.PromptExact, br.Accuracy.Compared, br.RecordedCostUSD)
		for _, s := range br.Strategies {
			extra := ""
			if s.Archives > 0 || s.Reloads > 0 {
				extra = fmt.Sprintf("<br><small>%d archived, %d reloaded</small>", s.Archives, s.Reloads)
			}
			fmt.Fprintf(&b, "<td>%.4f%s</td>", s.CostUSD, extra)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n<p class=\"note\">Recorded USD is what the provider billed; keep-all USD prices the same requests as replay prices every strategy, so the two differ by pricing (docs/replay.md, <i>Output</i>).</p>\n</body></html>\n")
	return b.String()
}

// writeSettings writes the table of what made the report.
func writeSettings(b *strings.Builder, rep *Report, about HTMLAbout) {
	row := func(k, v string) { fmt.Fprintf(b, "<tr><th>%s</th><td>%s</td></tr>\n", k, v) }
	b.WriteString("<h2 id=\"settings\">Settings</h2>\n<table class=\"settings\">\n")
	if about.Version != "" {
		row("version", html.EscapeString(about.Version))
	}
	if about.Args != nil {
		parts := make([]string, len(about.Args))
		for i, a := range about.Args {
			parts[i] = shellQuote(a)
		}
		row("command", "<code>skill-lifecycle "+html.EscapeString(strings.Join(parts, " "))+"</code>")
	}
	switch {
	case about.Pack != "":
		row("skill pack", fmt.Sprintf("<code>%s</code>, %d %s", html.EscapeString(about.Pack), about.PackSkills, pluralWord(about.PackSkills, "skill", "skills")))
	case about.Args != nil:
		row("skill pack", "none (no <code>--skills</code>): the engine knows no skill and archives nothing")
	}
	if rep.TTLSeconds > 0 {
		row("cache lifetime", fmt.Sprintf("%gs: a request more than this after the previous one finds the cache cold", rep.TTLSeconds))
	} else {
		row("cache lifetime", "none: the cache never expires")
	}
	switch {
	case rep.NoComebacks:
		row("comebacks", "off (<code>--no-comebacks</code>): the agent reloads an archived skill only where the session shows it using the skill's files")
	case rep.AllComebacks:
		row("comebacks", "every one (<code>--all-comebacks</code>): the agent reloads every archived skill a prompt asks for")
	default:
		row("comebacks", "inferred from each prompt (the agent reloads the archived skill that does the turn's work)")
	}
	if rep.AllBranches {
		row("branches", "every leaf of each session (<code>--all-branches</code>)")
	} else {
		row("branches", "the branch of each session's last entry")
	}
	var prices []string
	keys := make([]string, 0, len(rep.Prices))
	for k := range rep.Prices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := rep.Prices[k].(pricing.Prices)
		if !ok {
			continue
		}
		s := fmt.Sprintf("%s: input %s, output %s", html.EscapeString(k), priceText(p.Input), priceText(p.Output))
		if p.CacheRead > 0 {
			s += ", cache read " + priceText(p.CacheRead)
		}
		if p.CacheWrite > 0 {
			s += ", cache write " + priceText(p.CacheWrite)
		}
		prices = append(prices, s)
	}
	row("prices", "USD per million tokens; a cache read or write without its own price is a multiple of the input price (0.1 and 1.25 unless <code>--prices</code> says otherwise)<br>"+strings.Join(prices, "<br>"))
	row("input", fmt.Sprintf("%d %s replayed (%.1f MB), %d skipped", rep.Files, pluralWord(rep.Files, "file", "files"), float64(rep.Bytes)/1e6, len(rep.Skipped)))
	b.WriteString("</table>\n")
}

func priceText(v float64) string { return strconv.FormatFloat(roundTo(v, priceDecimals), 'f', -1, 64) }

// shellQuote quotes an argument for the command line shown, when it needs it.
func shellQuote(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:@+") == "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func colour(i int) string { return palette[i%len(palette)] }

// strokeOf is the width of strategy i's lines: keep-all, the baseline,
// wide and light, so that a strategy that matches it stays visible on it.
func strokeOf(i int) string {
	if i == 0 {
		return `stroke-width="3.5" stroke-opacity="0.45"`
	}
	return `stroke-width="1.5"`
}

// sessionName names a branch on the page: its file's name (and leaf,
// with every branch replayed).
func sessionName(rep *Report, b BranchReport) string {
	name := filepath.Base(b.File)
	if rep.AllBranches && b.Leaf != "" {
		name += "@" + b.Leaf
	}
	return name
}

// chartName is a branch's name on the charts: sessionName without the
// file's .jsonl.
func chartName(rep *Report, b BranchReport) string {
	name := strings.TrimSuffix(filepath.Base(b.File), ".jsonl")
	if rep.AllBranches && b.Leaf != "" {
		name += "@" + b.Leaf
	}
	return name
}

// geometry is what both charts share: the requests on the x axis and the
// sessions' spans.
type geometry struct {
	n     int      // requests (the x axis has one slot per request)
	spans [][2]int // per branch, its first and last request (-1 when none)
	step  int      // requests per drawn point
	// right is both charts' right margin (they share their x axis): room
	// for the cost chart's end labels.
	right float64
}

// chartWidth is both charts' width: a plot of 820 pixels, the y axis
// and the right margin.
func chartWidth(g geometry) float64 { return 72 + 820 + g.right }

func newGeometry(rep *Report) geometry {
	g := geometry{spans: make([][2]int, len(rep.Branches))}
	for i := range g.spans {
		g.spans[i] = [2]int{-1, -1}
	}
	for _, s := range rep.Series {
		for _, p := range s {
			g.n = max(g.n, p.Seq+1)
			if p.Branch >= 0 && p.Branch < len(g.spans) {
				sp := &g.spans[p.Branch]
				if sp[0] < 0 || p.Seq < sp[0] {
					sp[0] = p.Seq
				}
				sp[1] = max(sp[1], p.Seq)
			}
		}
	}
	g.step = max(1, (g.n+maxChartPoints-1)/maxChartPoints)
	g.right = 40
	for si, s := range rep.Strategies {
		g.right = max(g.right, 6+float64(utf8.RuneCountInString(endLabel(rep, si, s.CostUSD)))*charWidth+8)
	}
	return g
}

// plot is one chart's frame: the SVG size and the plot area inside it.
type plot struct {
	w, h, left, right, top, bottom float64
	g                              geometry
	ymax                           float64
}

func (p plot) pw() float64 { return p.w - p.left - p.right }
func (p plot) ph() float64 { return p.h - p.top - p.bottom }

// x is the centre of request seq's slot; edge its left edge.
func (p plot) x(seq int) float64 {
	return p.left + p.pw()*(float64(seq)+0.5)/float64(max(1, p.g.n))
}
func (p plot) edge(seq int) float64 { return p.left + p.pw()*float64(seq)/float64(max(1, p.g.n)) }
func (p plot) y(v float64) float64  { return p.top + p.ph()*(1-v/p.ymax) }

// niceStep is a round step (1, 2, 2.5 or 5 times a power of ten) that cuts
// [0, top] into about n intervals.
func niceStep(top float64, n int) float64 {
	if !(top > 0) || math.IsInf(top, 0) {
		return 1
	}
	raw := top / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag*(1+1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// tokenText writes a token count for an axis: 0, 500, 10k, 1.5M.
func tokenText(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// usdText writes a dollar figure for an axis with the decimals its step
// needs ($0.25, $0.002, $1).
func usdText(v, step float64) string {
	d := 0
	for scaled := step; d < 12 && math.Abs(scaled-math.Round(scaled)) > 1e-6*math.Max(1, scaled); d++ {
		scaled *= 10
	}
	return "$" + strconv.FormatFloat(v, 'f', d, 64)
}

// frame opens the chart's SVG and draws the sessions' bands and labels,
// the y gridlines and ticks (round steps, with their unit) and the x
// ticks (request numbers); it returns the plot with its y range set.
func frame(b *strings.Builder, rep *Report, p plot, id, label, yTitle string, yTick func(v, step float64) string, rawMax float64) plot {
	step := niceStep(rawMax, 5)
	p.ymax = math.Max(step, math.Ceil(rawMax/step-1e-9)*step)
	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\" role=\"img\" aria-label=\"%s\">\n", id, p.w, p.h, p.w, p.h, html.EscapeString(label))
	fmt.Fprintf(b, "<rect class=\"plot-area\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"#fff\" stroke=\"none\"/>\n", p.left, p.top, p.pw(), p.ph())
	// Sessions: alternate shaded bands, each labelled with its number and
	// name where they fit (its full name on hover).
	for i, sp := range p.g.spans {
		if sp[0] < 0 {
			continue
		}
		x0, x1 := p.edge(sp[0]), p.edge(sp[1]+1)
		name := chartName(rep, rep.Branches[i])
		fill := "#f7f7f7"
		if i%2 == 1 {
			fill = "#ececec"
		}
		fmt.Fprintf(b, "<rect class=\"session-band\" data-session=\"%d\" x=\"%.1f\" y=\"%g\" width=\"%.1f\" height=\"%g\" fill=\"%s\"><title>session %d: %s</title></rect>\n",
			i+1, x0, p.top, x1-x0, p.ph(), fill, i+1, html.EscapeString(name))
		if i > 0 {
			fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#aaa\" stroke-dasharray=\"2,3\"/>\n", x0, p.top, x0, p.top+p.ph())
		}
		text := sessionLabel(i+1, name, x1-x0-4)
		if text != "" {
			fmt.Fprintf(b, "<text class=\"session-label\" data-session=\"%d\" x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s<title>session %d: %s</title></text>\n",
				i+1, (x0+x1)/2, p.top-6, html.EscapeString(text), i+1, html.EscapeString(name))
		}
	}
	// The y axis: gridlines at round steps, labelled with the unit.
	for v := 0.0; v <= p.ymax*(1+1e-9); v += step {
		y := p.y(v)
		fmt.Fprintf(b, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#d8d8d8\"/>\n", p.left, y, p.left+p.pw(), y)
		fmt.Fprintf(b, "<text class=\"ytick\" x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", p.left-6, y+4, yTick(v, step))
	}
	fmt.Fprintf(b, "<text class=\"title\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", p.top+p.ph()/2, html.EscapeString(yTitle))
	// The x axis: request numbers (1-based) at round steps.
	fmt.Fprintf(b, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#888\"/>\n", p.left, p.top+p.ph(), p.left+p.pw(), p.top+p.ph())
	fmt.Fprintf(b, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#888\"/>\n", p.left, p.top, p.left, p.top+p.ph())
	xs := max(1, int(niceStep(float64(p.g.n), 10)))
	for v := xs; v <= p.g.n; v += xs {
		x := p.x(v - 1)
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#888\"/>\n", x, p.top+p.ph(), x, p.top+p.ph()+4)
		fmt.Fprintf(b, "<text class=\"xtick\" x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%d</text>\n", x, p.top+p.ph()+16, v)
	}
	fmt.Fprintf(b, "<text class=\"title\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">model request, all sessions in order (%d in all)</text>\n", p.left+p.pw()/2, p.h-6, p.g.n)
	return p
}

// charWidth is about the width of a character of the charts' font.
const charWidth = 6.2

// sessionLabel is what fits of "n name" in width pixels: the whole, the
// number and the name's start with an ellipsis (three characters of it at
// least), the number alone, or nothing.
func sessionLabel(n int, name string, width float64) string {
	fits := func(s string) bool { return float64(utf8.RuneCountInString(s))*charWidth <= width }
	full := strconv.Itoa(n) + " " + name
	if fits(full) {
		return full
	}
	r := []rune(name)
	room := int(width/charWidth) - len(strconv.Itoa(n)) - 2 // the space and the ellipsis
	if room >= 3 && room < len(r) {
		return strconv.Itoa(n) + " " + string(r[:room]) + "…"
	}
	if fits(strconv.Itoa(n)) {
		return strconv.Itoa(n)
	}
	return ""
}

// legend draws the strategies (and the markers, when asked) in rows
// across the top of a chart; it returns the height it took.
func legend(b *strings.Builder, rep *Report, w, left float64, markers bool) float64 {
	type item struct{ swatch, text string }
	var items []item
	for i, s := range rep.Strategies {
		items = append(items, item{fmt.Sprintf("<line x1=\"0\" y1=\"-4\" x2=\"16\" y2=\"-4\" stroke=\"%s\" stroke-width=\"2.5\"/>", colour(i)), s.Name})
	}
	if markers {
		items = append(items, item{"<path d=\"M4,-9 L12,-9 L8,-2 Z\" fill=\"#444\"/>", "bodies archived"},
			item{"<circle cx=\"8\" cy=\"-4\" r=\"3.5\" fill=\"#fff\" stroke=\"#444\" stroke-width=\"1.5\"/>", "a skill loaded again"})
	}
	x, y := left, 16.0
	for _, it := range items {
		wd := 22 + float64(utf8.RuneCountInString(it.text))*charWidth + 14
		if x+wd > w && x > left {
			x, y = left, y+16
		}
		fmt.Fprintf(b, "<g class=\"legend\" transform=\"translate(%.1f %g)\">%s<text x=\"20\" y=\"0\">%s</text></g>\n", x, y, it.swatch, html.EscapeString(it.text))
		x += wd
	}
	return y + 8
}

func contextChart(rep *Report, g geometry) string {
	var b strings.Builder
	if g.n == 0 {
		return "<p>no requests</p>"
	}
	peak := 1
	for _, s := range rep.Series {
		for _, pt := range s {
			peak = max(peak, pt.Tokens)
		}
	}
	var lb strings.Builder
	lh := legend(&lb, rep, chartWidth(g), 72, true)
	p := frame(&b, rep, plot{w: chartWidth(g), h: 380 + lh, left: 72, right: g.right, top: lh + 24, bottom: 40, g: g}, "context-chart",
		"prompt tokens per request for each strategy", "prompt tokens", func(v, _ float64) string { return tokenText(v) }, float64(peak))
	b.WriteString(lb.String())
	for si, s := range rep.Series {
		name := strategyName(rep, si)
		var pts strings.Builder
		type mark struct {
			seq, tokens, n int
		}
		var archives, reloads []mark
		for i := 0; i < len(s); {
			bucket := s[i].Seq / g.step
			v := 0
			var arch, rel mark
			for ; i < len(s) && s[i].Seq/g.step == bucket; i++ {
				pt := s[i]
				v = max(v, pt.Tokens)
				if pt.Archived > 0 {
					arch = mark{pt.Seq, pt.Tokens, arch.n + pt.Archived}
				}
				if pt.Reloaded > 0 {
					rel = mark{pt.Seq, pt.Tokens, rel.n + pt.Reloaded}
				}
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", p.x(bucket*g.step), p.y(float64(v)))
			if arch.n > 0 {
				archives = append(archives, arch)
			}
			if rel.n > 0 {
				reloads = append(reloads, rel)
			}
		}
		c := colour(si)
		fmt.Fprintf(&b, "<polyline class=\"series context\" data-strategy=\"%s\" fill=\"none\" stroke=\"%s\" %s points=\"%s\"><title>%s</title></polyline>\n",
			html.EscapeString(name), c, strokeOf(si), strings.TrimSpace(pts.String()), html.EscapeString(name))
		for _, m := range archives {
			x, y := p.x(m.seq), p.y(float64(m.tokens))
			fmt.Fprintf(&b, "<path class=\"marker archive\" data-strategy=\"%s\" data-count=\"%d\" d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\" fill=\"%s\"><title>%s: %d %s archived from request %d on</title></path>\n",
				html.EscapeString(name), m.n, x-4, y-10, x+4, y-10, x, y-3, c, html.EscapeString(name), m.n, pluralWord(m.n, "body", "bodies"), m.seq+1)
		}
		for _, m := range reloads {
			fmt.Fprintf(&b, "<circle class=\"marker reload\" data-strategy=\"%s\" data-count=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"1.5\"><title>%s: %d archived %s loaded again by request %d</title></circle>\n",
				html.EscapeString(name), m.n, p.x(m.seq), p.y(float64(m.tokens)), c, html.EscapeString(name), m.n, pluralWord(m.n, "skill", "skills"), m.seq+1)
		}
	}
	b.WriteString("</svg>")
	return b.String()
}

func costChart(rep *Report, g geometry) string {
	var b strings.Builder
	if g.n == 0 {
		return "<p>no requests</p>"
	}
	// Cumulative cost per strategy, per drawn bucket.
	type pt struct {
		seq  int
		cost float64
	}
	curves := make([][]pt, len(rep.Series))
	top := 0.0
	for si, s := range rep.Series {
		sum := 0.0
		for i := 0; i < len(s); {
			bucket := s[i].Seq / g.step
			for ; i < len(s) && s[i].Seq/g.step == bucket; i++ {
				sum += s[i].CostUSD
			}
			curves[si] = append(curves[si], pt{bucket * g.step, sum})
		}
		top = math.Max(top, sum)
	}
	var lb strings.Builder
	lh := legend(&lb, rep, chartWidth(g), 72, false)
	p := frame(&b, rep, plot{w: chartWidth(g), h: 340 + lh, left: 72, right: g.right, top: lh + 24, bottom: 40, g: g}, "cost-chart",
		"cumulative cost per strategy", "cumulative cost (USD)", usdText, top)
	b.WriteString(lb.String())
	type end struct {
		y    float64
		text string
		si   int
	}
	var ends []end
	for si, cv := range curves {
		name := strategyName(rep, si)
		var pts strings.Builder
		for _, q := range cv {
			fmt.Fprintf(&pts, "%.1f,%.1f ", p.x(q.seq), p.y(q.cost))
		}
		fmt.Fprintf(&b, "<polyline class=\"series cost\" data-strategy=\"%s\" fill=\"none\" stroke=\"%s\" %s points=\"%s\"><title>%s</title></polyline>\n",
			html.EscapeString(name), colour(si), strokeOf(si), strings.TrimSpace(pts.String()), html.EscapeString(name))
		if len(cv) > 0 {
			ends = append(ends, end{p.y(cv[len(cv)-1].cost), endLabel(rep, si, cv[len(cv)-1].cost), si})
		}
	}
	// End labels, moved apart so that they do not overlap.
	sort.SliceStable(ends, func(i, j int) bool { return ends[i].y < ends[j].y })
	for i := range ends {
		if i > 0 && ends[i].y < ends[i-1].y+13 {
			ends[i].y = ends[i-1].y + 13
		}
	}
	if n := len(ends); n > 0 && ends[n-1].y > p.top+p.ph()+4 {
		shift := ends[n-1].y - (p.top + p.ph() + 4)
		for i := range ends {
			ends[i].y -= shift
		}
	}
	for _, e := range ends {
		fmt.Fprintf(&b, "<text class=\"end-label\" data-strategy=\"%s\" x=\"%g\" y=\"%.1f\" style=\"fill:%s\">%s</text>\n",
			html.EscapeString(strategyName(rep, e.si)), p.left+p.pw()+6, e.y+4, colour(e.si), html.EscapeString(e.text))
	}
	b.WriteString("</svg>")
	return b.String()
}

// endLabel is the label at the end of strategy si's cost line.
func endLabel(rep *Report, si int, cost float64) string {
	text := fmt.Sprintf("%s $%.4f", strategyName(rep, si), cost)
	if si < len(rep.Strategies) {
		text += fmt.Sprintf(" (%.1f%%)", rep.Strategies[si].CostPct)
	}
	return text
}

func strategyName(rep *Report, i int) string {
	if i < len(rep.Strategies) {
		return rep.Strategies[i].Name
	}
	return "strategy " + strconv.Itoa(i+1)
}
