//go:build browser

package browser

import (
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// probe is the script added to a copy of the page (the page itself has
// none): after layout it measures the charts' elements and writes what it
// found, as JSON, into <pre id="probe">.
const probe = `<script>
(function () {
  function box(e) { var r = e.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; }
  function own(e) { var t = ""; e.childNodes.forEach(function (n) { if (n.nodeType === 3) t += n.textContent; }); return t; }
  var out = {charts: {}, text: document.body.innerText, scripts: document.scripts.length};
  ["context-chart", "cost-chart"].forEach(function (id) {
    var svg = document.getElementById(id);
    if (!svg) return;
    var c = {svg: box(svg), plot: box(svg.querySelector("rect.plot-area")), series: [], markers: [], labels: [], bands: [], yticks: [], ends: [], legend: [], titles: []};
    svg.querySelectorAll(".series").forEach(function (e) { c.series.push({strategy: e.dataset.strategy, box: box(e), points: e.points.numberOfItems}); });
    svg.querySelectorAll(".marker").forEach(function (e) { c.markers.push({kind: e.classList.contains("archive") ? "archive" : "reload", strategy: e.dataset.strategy, count: +e.dataset.count, box: box(e)}); });
    svg.querySelectorAll("text.session-label").forEach(function (e) { c.labels.push({session: +e.dataset.session, text: own(e), box: box(e)}); });
    svg.querySelectorAll("rect.session-band").forEach(function (e) { c.bands.push({session: +e.dataset.session, box: box(e)}); });
    svg.querySelectorAll("text.ytick").forEach(function (e) { c.yticks.push({text: own(e), box: box(e)}); });
    svg.querySelectorAll("text.end-label").forEach(function (e) { c.ends.push({strategy: e.dataset.strategy, text: own(e), box: box(e)}); });
    svg.querySelectorAll(".legend text").forEach(function (e) { c.legend.push(own(e)); });
    svg.querySelectorAll("text.title").forEach(function (e) { c.titles.push(own(e)); });
    out.charts[id] = c;
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type rect struct{ X, Y, W, H float64 }

func (r rect) right() float64  { return r.X + r.W }
func (r rect) bottom() float64 { return r.Y + r.H }

// within reports whether r lies inside o, give or take tol pixels.
func (r rect) within(o rect, tol float64) bool {
	return r.X >= o.X-tol && r.Y >= o.Y-tol && r.right() <= o.right()+tol && r.bottom() <= o.bottom()+tol
}

func (r rect) overlaps(o rect) bool {
	return r.X < o.right() && o.X < r.right() && r.Y < o.bottom() && o.Y < r.bottom()
}

type probed struct {
	Text    string           `json:"text"`
	Scripts int              `json:"scripts"`
	Charts  map[string]chart `json:"charts"`
}

type chart struct {
	SVG    rect `json:"svg"`
	Plot   rect `json:"plot"`
	Series []struct {
		Strategy string `json:"strategy"`
		Box      rect   `json:"box"`
		Points   int    `json:"points"`
	} `json:"series"`
	Markers []struct {
		Kind, Strategy string
		Count          int  `json:"count"`
		Box            rect `json:"box"`
	} `json:"markers"`
	Labels []struct {
		Session int    `json:"session"`
		Text    string `json:"text"`
		Box     rect   `json:"box"`
	} `json:"labels"`
	Bands []struct {
		Session int  `json:"session"`
		Box     rect `json:"box"`
	} `json:"bands"`
	YTicks []struct {
		Text string `json:"text"`
		Box  rect   `json:"box"`
	} `json:"yticks"`
	Ends []struct {
		Strategy, Text string
		Box            rect `json:"box"`
	} `json:"ends"`
	Legend []string `json:"legend"`
	Titles []string `json:"titles"`
}

// report is what the test reads of replay --json.
type report struct {
	Strategies []struct {
		Name     string  `json:"name"`
		CostUSD  float64 `json:"costUSD"`
		CostPct  float64 `json:"costPct"`
		Archives int     `json:"archives"`
		Reloads  int     `json:"reloads"`
		Requests int     `json:"requests"`
	} `json:"strategies"`
	Branches []struct {
		File     string `json:"file"`
		Requests int    `json:"requests"`
	} `json:"branches"`
}

// render writes replay's HTML report for args, renders a copy with the
// probe in Chromium, and returns what the probe found, the report's JSON
// and a screenshot of the page.
func render(t *testing.T, args ...string) (probed, report, image.Image) {
	t.Helper()
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	runCLI(t, append([]string{"replay", "--html", page}, args...)...)
	var rep report
	if err := json.Unmarshal([]byte(runCLI(t, append([]string{"replay", "--json"}, args...)...)), &rep); err != nil {
		t.Fatalf("replay --json: %v", err)
	}
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(src)), "<script") {
		t.Errorf("the report holds a script; it must be plain HTML and SVG")
	}
	probedPage := filepath.Join(dir, "probed.html")
	if err := os.WriteFile(probedPage, []byte(strings.Replace(string(src), "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, "file://"+probedPage, "--dump-dom", "--window-size=1400,2400"))
	m := regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote nothing into the page Chromium laid out:\n%s", clip(dom, 3000))
	}
	var p probed
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &p); err != nil {
		t.Fatalf("probe output: %v\n%s", err, clip(m[1], 3000))
	}
	shot := filepath.Join(dir, "report.png")
	runChromium(t, "file://"+page, "--screenshot="+shot, "--window-size=1400,2400")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	if keep := os.Getenv("REPORT_PNG"); keep != "" {
		if data, err := os.ReadFile(shot); err == nil {
			_ = os.WriteFile(keep, data, 0o644)
		}
	}
	return p, rep, img
}

// TestReportInChromium: the replay report of the bundled sessions (and one
// more, under a name full of markup), laid out by Chromium: both charts
// have a line per strategy inside the plot; the context chart marks as
// many archives and reloads as the report counts, on the plot; every
// session is labelled inside its band, above the plot, without overlap,
// the markup shown as text; the y axes have round, evenly spaced ticks
// with their unit; the cost chart's end labels give each strategy's total
// and share, inside the picture and apart; the settings (version,
// command, pack, cache lifetime, prices) are stated; and the screenshot
// shows the strategies' colours.
func TestReportInChromium(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "live-sessions", "release-week.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, `a<b>&"c.jsonl`)
	if err := os.WriteFile(odd, src, 0o644); err != nil {
		t.Fatal(err)
	}
	p, rep, img := render(t, "--skills", "testdata/pack", "testdata/live-sessions", odd)
	if p.Scripts != 1 {
		t.Errorf("%d scripts in the probed page, want only the probe", p.Scripts)
	}
	if len(rep.Strategies) != 2 || len(rep.Branches) != 5 {
		t.Fatalf("report of %d strategies and %d sessions, want 2 and 5", len(rep.Strategies), len(rep.Branches))
	}
	requests := 0
	for _, b := range rep.Branches {
		requests += b.Requests
	}
	for _, id := range []string{"context-chart", "cost-chart"} {
		c, ok := p.Charts[id]
		if !ok {
			t.Fatalf("no #%s in the page", id)
		}
		t.Run(id, func(t *testing.T) {
			if c.Plot.W < 400 || c.Plot.H < 200 || !c.Plot.within(c.SVG, 0) {
				t.Errorf("plot area %+v in the chart %+v: want a large area inside it", c.Plot, c.SVG)
			}
			checkSeries(t, c, rep, requests)
			checkSessions(t, c, rep)
			unit := `^\d+(\.\d+)?[kM]?$`
			if id == "cost-chart" {
				unit = `^\$\d+(\.\d+)?$`
			}
			checkYTicks(t, c, unit)
		})
	}
	ctx, cost := p.Charts["context-chart"], p.Charts["cost-chart"]
	if ctx.Plot.X != cost.Plot.X || ctx.Plot.W != cost.Plot.W {
		t.Errorf("the charts' x axes differ: plot %+v and %+v", ctx.Plot, cost.Plot)
	}
	checkMarkers(t, ctx, rep)
	checkEnds(t, cost, rep)
	for _, want := range []string{"keep-all", "defaults", "bodies archived", "a skill loaded again"} {
		if !contains(ctx.Legend, want) {
			t.Errorf("the context chart's legend %q lacks %q", ctx.Legend, want)
		}
	}
	for _, want := range []string{"prompt tokens", "model request, all sessions in order (" + strconv.Itoa(requests) + " in all)"} {
		if !contains(ctx.Titles, want) {
			t.Errorf("the context chart's axis titles %q lack %q", ctx.Titles, want)
		}
	}
	if !contains(cost.Titles, "cumulative cost (USD)") {
		t.Errorf("the cost chart's axis titles %q lack the unit", cost.Titles)
	}

	version := strings.TrimSpace(runCLI(t, "--version"))
	for _, want := range []string{
		"version\t" + version,
		"command\tskill-lifecycle replay --html ",
		"skill pack\ttestdata/pack, 8 skills",
		"cache lifetime\t300s",
		"comebacks\tinferred from each prompt",
		"scripted/scripted-model: input 3, output 15, cache read 0.3",
		"5 files replayed",
	} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the settings lack %q:\n%s", want, clip(p.Text, 2000))
		}
	}

	// Drawn, not only laid out: the strategies' colours are on the
	// screenshot (keep-all's grey, drawn light, and the defaults' blue).
	if n := countColour(img, 0x00, 0x72, 0xb2); n < 300 {
		t.Errorf("%d pixels of the defaults' colour on the screenshot, want the lines and markers", n)
	}
}

// TestReportInChromiumNoPack: without a pack nothing is archived: no
// marker, the settings say so and name the cache lifetime given.
func TestReportInChromiumNoPack(t *testing.T) {
	p, rep, _ := render(t, "--cache-ttl", "0", "testdata/live-sessions")
	c := p.Charts["context-chart"]
	if len(c.Markers) != 0 {
		t.Errorf("%d markers without a pack, want none", len(c.Markers))
	}
	if len(c.Series) != len(rep.Strategies) || len(c.Labels) != len(rep.Branches) {
		t.Errorf("%d lines and %d session labels, want %d and %d", len(c.Series), len(c.Labels), len(rep.Strategies), len(rep.Branches))
	}
	for _, want := range []string{"skill pack\tnone (no --skills)", "cache lifetime\tnone: the cache never expires"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the settings lack %q:\n%s", want, clip(p.Text, 2000))
		}
	}
}

func checkSeries(t *testing.T, c chart, rep report, requests int) {
	t.Helper()
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Strategy)
		if !s.Box.within(c.Plot, 2) || s.Box.W < c.Plot.W*0.9 || s.Box.H < 20 {
			t.Errorf("line of %s at %+v, plot %+v: want it across the plot, inside it", s.Strategy, s.Box, c.Plot)
		}
		if s.Points != requests {
			t.Errorf("line of %s has %d points, want one per request (%d)", s.Strategy, s.Points, requests)
		}
	}
	var want []string
	for _, s := range rep.Strategies {
		want = append(want, s.Name)
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("lines %q, want one per strategy %q", names, want)
	}
}

func checkMarkers(t *testing.T, c chart, rep report) {
	t.Helper()
	counts := map[string]int{}
	for _, m := range c.Markers {
		counts[m.Kind+" "+m.Strategy] += m.Count
		cx, cy := m.Box.X+m.Box.W/2, m.Box.Y+m.Box.H/2
		if cx < c.Plot.X || cx > c.Plot.right() || cy < c.Plot.Y-12 || cy > c.Plot.bottom() || m.Box.W < 5 {
			t.Errorf("%s marker of %s at %+v, outside the plot %+v", m.Kind, m.Strategy, m.Box, c.Plot)
		}
	}
	for _, s := range rep.Strategies {
		if counts["archive "+s.Name] != s.Archives || counts["reload "+s.Name] != s.Reloads {
			t.Errorf("%s: markers of %d archives and %d reloads, the report counts %d and %d",
				s.Name, counts["archive "+s.Name], counts["reload "+s.Name], s.Archives, s.Reloads)
		}
	}
	if counts["archive defaults"] == 0 || counts["reload defaults"] == 0 {
		t.Errorf("no archive or reload marked for defaults: %v", counts)
	}
}

func checkSessions(t *testing.T, c chart, rep report) {
	t.Helper()
	if len(c.Bands) != len(rep.Branches) || len(c.Labels) != len(rep.Branches) {
		t.Fatalf("%d session bands and %d labels, want %d of each", len(c.Bands), len(c.Labels), len(rep.Branches))
	}
	for i, l := range c.Labels {
		// The number and the name, or as much of the name as fits,
		// cut with an ellipsis.
		num := strconv.Itoa(i + 1)
		name := strings.TrimSuffix(filepath.Base(rep.Branches[i].File), ".jsonl")
		cut, shortened := strings.CutSuffix(strings.TrimPrefix(l.Text, num+" "), "…")
		if l.Session != i+1 || !strings.HasPrefix(l.Text, num+" ") || !strings.HasPrefix(name, cut) || (!shortened && cut != name) || len(cut) < 3 {
			t.Errorf("session label %d: %q, want %q or its start", l.Session, l.Text, num+" "+name)
		}
		band := c.Bands[i].Box
		if l.Box.X < band.X-1 || l.Box.right() > band.right()+1 || l.Box.bottom() > c.Plot.Y+1 || l.Box.Y < c.SVG.Y {
			t.Errorf("session label %q at %+v: want it above the plot (%+v), over its band %+v", l.Text, l.Box, c.Plot, band)
		}
		if i > 0 && l.Box.overlaps(c.Labels[i-1].Box) {
			t.Errorf("session labels %q and %q overlap", c.Labels[i-1].Text, l.Text)
		}
		if !band.within(c.Plot, 0.5) || band.W < 10 {
			t.Errorf("session band %d at %+v, plot %+v", i+1, band, c.Plot)
		}
	}
}

// checkYTicks: at least three ticks, from 0, with the unit's form, at a
// round step (1, 2, 2.5 or 5 times a power of ten), evenly spaced from the
// bottom of the plot to its top.
func checkYTicks(t *testing.T, c chart, unit string) {
	t.Helper()
	if len(c.YTicks) < 3 {
		t.Fatalf("%d y ticks", len(c.YTicks))
	}
	re := regexp.MustCompile(unit)
	var vals, ys []float64
	for _, k := range c.YTicks {
		if !re.MatchString(k.Text) {
			t.Errorf("y tick %q does not match %s", k.Text, unit)
		}
		vals = append(vals, tickValue(k.Text))
		ys = append(ys, k.Box.Y+k.Box.H/2)
	}
	if vals[0] != 0 {
		t.Errorf("the first y tick is %q, want 0", c.YTicks[0].Text)
	}
	step := vals[1] - vals[0]
	mag := math.Pow(10, math.Floor(math.Log10(step)))
	m := step / mag
	if !(approx(m, 1) || approx(m, 2) || approx(m, 2.5) || approx(m, 5)) {
		t.Errorf("y step %g is not round", step)
	}
	gap := ys[0] - ys[1]
	for i := 1; i < len(vals); i++ {
		if !approx(vals[i]-vals[i-1], step) || math.Abs((ys[i-1]-ys[i])-gap) > 1.5 {
			t.Errorf("y ticks %q not evenly spaced: values %v at %v", c.YTicks[i].Text, vals, ys)
			break
		}
	}
	if math.Abs(ys[0]-c.Plot.bottom()) > 3 || math.Abs(ys[len(ys)-1]-c.Plot.Y) > 3 {
		t.Errorf("y ticks from %.1f to %.1f, want the plot's bottom %.1f to its top %.1f", ys[0], ys[len(ys)-1], c.Plot.bottom(), c.Plot.Y)
	}
}

func checkEnds(t *testing.T, c chart, rep report) {
	t.Helper()
	if len(c.Ends) != len(rep.Strategies) {
		t.Fatalf("%d end labels, want %d", len(c.Ends), len(rep.Strategies))
	}
	for _, s := range rep.Strategies {
		want := fmt.Sprintf("%s $%.4f (%.1f%%)", s.Name, s.CostUSD, s.CostPct)
		found := false
		for i, e := range c.Ends {
			if e.Strategy != s.Name {
				continue
			}
			found = true
			if e.Text != want {
				t.Errorf("end label %q, want %q", e.Text, want)
			}
			if !e.Box.within(c.SVG, 1) || e.Box.X < c.Plot.right() {
				t.Errorf("end label %q at %+v: want it right of the plot %+v, inside the chart %+v", e.Text, e.Box, c.Plot, c.SVG)
			}
			for _, o := range c.Ends[i+1:] {
				if e.Box.overlaps(o.Box) {
					t.Errorf("end labels %q and %q overlap", e.Text, o.Text)
				}
			}
		}
		if !found {
			t.Errorf("no end label for %s", s.Name)
		}
	}
}

// tickValue reads an axis label: 0, 500, 10k, 1.5M, $0.25.
func tickValue(s string) float64 {
	s = strings.TrimPrefix(s, "$")
	mul := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		s, mul = strings.TrimSuffix(s, "k"), 1e3
	case strings.HasSuffix(s, "M"):
		s, mul = strings.TrimSuffix(s, "M"), 1e6
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v * mul
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// countColour counts the pixels of img within 24 of the colour r, g, b on
// each channel.
func countColour(img image.Image, r, g, b uint8) int {
	n := 0
	bd := img.Bounds()
	near := func(a uint32, c uint8) bool { return math.Abs(float64(a>>8)-float64(c)) <= 24 }
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, r) && near(pg, g) && near(pb, b) {
				n++
			}
		}
	}
	return n
}
