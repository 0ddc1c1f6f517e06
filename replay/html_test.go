package replay

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// bundledReport replays testdata/live-sessions with their pack and the
// defaults, keeping the chart series.
func bundledReport(t *testing.T) *Report {
	t.Helper()
	pack := filepath.Join(repoRoot(), "testdata", "pack")
	sc := skills.Discover(skills.Options{Paths: []string{pack}, NoDefaults: true})
	r := NewRunner(Options{Pack: PackOf(sc, nil), TTL: DefaultTTL, Series: true, Strategies: []StrategySpec{EngineSpec("defaults", host.OfCatalog(sc, rules.Default()))}})
	files, err := filepath.Glob(filepath.Join(repoRoot(), "testdata", "live-sessions", "*.jsonl"))
	if err != nil || len(files) != 4 {
		t.Fatalf("bundled sessions: %v %v", files, err)
	}
	for _, f := range files {
		if err := r.AddFile(f); err != nil {
			t.Fatal(err)
		}
	}
	return r.Report()
}

// TestSeriesEvents: the chart series carry each request's cost, the
// bodies archived from it on and the skills back in it; summed, they are
// the strategy's cost, archives and reloads.
func TestSeriesEvents(t *testing.T) {
	rep := bundledReport(t)
	for i, s := range rep.Strategies {
		cost, arch, rel := 0.0, 0, 0
		for _, p := range rep.Series[i] {
			cost += p.CostUSD
			arch += p.Archived
			rel += p.Reloaded
		}
		if math.Abs(cost-s.CostUSD) > 1e-9 || arch != s.Archives || rel != s.Reloads {
			t.Errorf("%s: series sum to $%.6f, %d archives, %d reloads; the totals are $%.6f, %d, %d", s.Name, cost, arch, rel, s.CostUSD, s.Archives, s.Reloads)
		}
	}
	if rep.Strategies[1].Archives == 0 || rep.Strategies[1].Reloads == 0 {
		t.Errorf("defaults archive %d and reload %d: want some of each", rep.Strategies[1].Archives, rep.Strategies[1].Reloads)
	}
}

// TestHTMLReport: the page marks as many archives and reloads as the
// report counts, labels every session and strategy, states the settings,
// escapes names and holds no script (tests/browser checks the layout).
func TestHTMLReport(t *testing.T) {
	rep := bundledReport(t)
	rep.Branches[0].File = filepath.Join(filepath.Dir(rep.Branches[0].File), `x<b>&"y.jsonl`)
	page := HTML(rep, HTMLAbout{Version: "skill-lifecycle v9 (commit abc) go linux/amd64", Args: []string{"replay", "--html", "r.html", "a b"}, Pack: "testdata/pack", PackSkills: 8})
	count := func(kind string) int {
		n := 0
		for _, m := range regexp.MustCompile(`class="marker `+kind+`" data-strategy="defaults" data-count="(\d+)"`).FindAllStringSubmatch(page, -1) {
			k, _ := strconv.Atoi(m[1])
			n += k
		}
		return n
	}
	def := rep.Strategies[1]
	if a, r := count("archive"), count("reload"); a != def.Archives || r != def.Reloads {
		t.Errorf("markers: %d archives and %d reloads, want %d and %d", a, r, def.Archives, def.Reloads)
	}
	for _, want := range []string{
		`<text class="session-label" data-session="1"`, `1 x&lt;b&gt;&amp;&#34;y<title>`, `>2 customer-pagination<title>`,
		`class="series context" data-strategy="keep-all"`, `class="series cost" data-strategy="defaults"`,
		`>defaults $` + strconv.FormatFloat(def.CostUSD, 'f', 4, 64) + ` (` + strconv.FormatFloat(def.CostPct, 'f', 1, 64) + `%)</text>`,
		`<tr><th>version</th><td>skill-lifecycle v9 (commit abc) go linux/amd64</td></tr>`,
		`<code>skill-lifecycle replay --html r.html &#39;a b&#39;</code>`,
		`<code>testdata/pack</code>, 8 skills`, `300s: a request more than this`,
		`scripted/scripted-model: input 3, output 15, cache read 0.3`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") || strings.Contains(page, `x<b>`) {
		t.Errorf("page holds a script or an unescaped name")
	}
	if os.Getenv("REPORT_HTML") != "" {
		_ = os.WriteFile(os.Getenv("REPORT_HTML"), []byte(page), 0o644)
	}
}

// TestAxisTicks: round steps and their labels.
func TestAxisTicks(t *testing.T) {
	for _, tc := range []struct {
		top  float64
		step float64
	}{{15089, 5000}, {12000, 2500}, {1.0042, 0.25}, {3.18, 1}, {0.0042, 0.001}, {7, 2}, {0, 1}, {92000, 20000}} {
		if got := niceStep(tc.top, 5); math.Abs(got-tc.step) > 1e-12 {
			t.Errorf("niceStep(%g) = %g, want %g", tc.top, got, tc.step)
		}
	}
	for _, tc := range []struct {
		v, step float64
		want    string
	}{{0.75, 0.25, "$0.75"}, {0.5, 0.25, "$0.50"}, {2, 1, "$2"}, {0.003, 0.001, "$0.003"}, {0, 0.5, "$0.0"}} {
		if got := usdText(tc.v, tc.step); got != tc.want {
			t.Errorf("usdText(%g, %g) = %q, want %q", tc.v, tc.step, got, tc.want)
		}
	}
	for v, want := range map[float64]string{0: "0", 500: "500", 2500: "2.5k", 20000: "20k", 1.5e6: "1.5M"} {
		if got := tokenText(v); got != want {
			t.Errorf("tokenText(%g) = %q, want %q", v, got, want)
		}
	}
	for _, tc := range []struct {
		width float64
		want  string
	}{{200, "2 customer-pagination"}, {80, "2 customer-…"}, {30, "2"}, {3, ""}} {
		if got := sessionLabel(2, "customer-pagination", tc.width); got != tc.want {
			t.Errorf("sessionLabel(width %g) = %q, want %q", tc.width, got, tc.want)
		}
	}
}
