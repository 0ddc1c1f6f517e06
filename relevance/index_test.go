package relevance

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"stems, stop words and a pair across a hyphen", "Cross-validation of the model",
			[]string{"cross", "valid", "model", "cross_valid", "valid_model"}},
		{"pairs span removed stop words", "Explore the data",
			[]string{"explor", "data", "explor_data"}},
		{"a full stop breaks pairs", "Explore. Data",
			[]string{"explor", "data"}},
		{"a single newline does not break, a blank line does", "explore\ndata\n\nmodels",
			[]string{"explor", "data", "model", "explor_data"}},
		{"upper case is folded", "EXPLORE Data",
			[]string{"explor", "data", "explor_data"}},
		{"Cyrillic words are kept whole and lower-cased", "Кросс-Валидация модели",
			[]string{"кросс", "валидация", "модели", "кросс_валидация", "валидация_модели"}},
		{"Devanagari combining marks stay inside words", "मॉडल मूल्यांकन",
			[]string{"मॉडल", "मूल्यांकन", "मॉडल_मूल्यांकन"}},
		{"Han characters are words, pairs are bigrams", "交叉验证",
			[]string{"交", "叉", "验", "证", "交_叉", "叉_验", "验_证"}},
		{"lone letters and digits are dropped", "x = 0.97 and y", []string{"97"}},
		{"contractions and conversational words are stop words", "Yes, that one. I'll do it, please.", nil},
		{"empty", "", nil},
		{"only punctuation", "?!.,;:", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Terms(tt.text)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Terms(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestNegativeHeading(t *testing.T) {
	tests := []struct {
		h    string
		want bool
	}{
		{"When not to use", true},
		{"When NOT to use this skill", true},
		{"Do not use", true},
		{"Don't use for plotting", true},
		{"Don’t use", true},
		{"Avoid", true},
		{"Avoid these", true},
		{"Anti-patterns", true},
		{"Antipatterns", true},
		{"What this skill does NOT do", true},
		{"Not this skill", true},
		{"Forbidden shortcuts", true},
		{"Out of scope", true},
		{"Never", true},
		{"When to use", false},
		{"Usage", false},
		{"Stop conditions", false},
		{"Notebook export", false},
		{"Avoiding leakage in pipelines", false}, // a topic, not a prohibition
		{"Note for reviewers", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := NegativeHeading(tt.h); got != tt.want {
			t.Errorf("NegativeHeading(%q) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestIndexedHeadings(t *testing.T) {
	tests := []struct {
		name     string
		headings []string
		levels   []int
		want     []string
	}{
		{"sub-headings of a negative section are left out",
			[]string{"Plot", "When to use", "When not to use", "Tables", "Images", "Procedure", "Steps"},
			[]int{1, 2, 2, 3, 3, 2, 3},
			[]string{"Plot", "When to use", "Procedure", "Steps"}},
		{"a deeper negative heading ends at the next sibling",
			[]string{"Plot", "Steps", "Avoid", "Colours", "Output"},
			[]int{1, 2, 3, 4, 2},
			[]string{"Plot", "Steps", "Output"}},
		{"without levels only the negative heading goes",
			[]string{"Plot", "Do not use", "Tables", "Output"}, nil,
			[]string{"Plot", "Tables", "Output"}},
		{"nothing negative", []string{"A", "B"}, []int{1, 2}, []string{"A", "B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := IndexedHeadings(tt.headings, tt.levels)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestIndexedDescription(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Bootstrap a Python env. SKIP adding packages — load add-python-package. Trigger on pixi.",
			"Bootstrap a Python env.\n\n Trigger on pixi."},
		{"Plot figures.\nNot for Display plots. Never close.\n\nHOW TO USE: save PNG.",
			"Plot figures.\n\n\n\n\n\nHOW TO USE: save PNG."},
		{"Do not write JOURNAL.md", "\n\n"},
		{"Nothing negative here. Second sentence", "Nothing negative here. Second sentence"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := IndexedDescription(tt.in); got != tt.want {
			t.Errorf("IndexedDescription(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// bm25 is the scoring formula written out for one term, for checking Rank.
func bm25(idf, tf, k1, b, dl, avg float64) float64 {
	return idf * tf * (k1 + 1) / (tf + k1*(1-b+b*dl/avg))
}

func idfOf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

func TestRankMatchesBM25(t *testing.T) {
	// Three skills; the query word "plot" is in two descriptions (tf 1
	// and 2), "chart" in one heading. Pairs are off so the lengths are
	// plain counts.
	docs := []Doc{
		{Name: "alpha", Description: "plot data", Headings: []string{"chart"}},
		{Name: "beta", Description: "plot plot figures tables"},
		{Name: "gamma", Description: "tables"},
	}
	p := Params{K1: 1.2, B: 0.75, NameWeight: 3, DescriptionWeight: 2, HeadingWeight: 1, PairWeight: 0, Damping: 0}
	ix := NewIndex(docs, p)
	// Lengths: alpha 3+2*2+1 = 8, beta 3+2*4 = 11, gamma 3+2 = 5.
	avg := (8.0 + 11 + 5) / 3
	wantAlpha := bm25(idfOf(3, 2), 2, 1.2, 0.75, 8, avg) + bm25(idfOf(3, 1), 1, 1.2, 0.75, 8, avg)
	wantBeta := bm25(idfOf(3, 2), 4, 1.2, 0.75, 11, avg)
	rk := ix.Rank("plot a chart", 0)
	want := []Result{
		{Skill: "alpha", Score: wantAlpha, Terms: []string{"chart", "plot"}},
		{Skill: "beta", Score: wantBeta, Terms: []string{"plot"}},
	}
	if wantBeta > wantAlpha {
		want[0], want[1] = want[1], want[0]
	}
	if diff := cmp.Diff(want, rk.Results, cmpopts.EquateApprox(1e-6, 0)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if rk.Best != rk.Results[0].Score || !rk.Signal {
		t.Errorf("Best %v Signal %v, want %v true", rk.Best, rk.Signal, rk.Results[0].Score)
	}
}

func TestRareTermCountsMore(t *testing.T) {
	// "shared" is in every skill, "rare" in one: with equal frequencies
	// and lengths, the skill holding the rare term wins a query naming
	// both, and the rare term's IDF is higher.
	docs := []Doc{
		{Name: "one", Description: "shared rare"},
		{Name: "two", Description: "shared other"},
		{Name: "three", Description: "shared third"},
		{Name: "four", Description: "shared fourth"},
	}
	ix := NewIndex(docs, DefaultParams())
	if ix.IDF("rare") <= ix.IDF("share") {
		t.Errorf("IDF(rare) = %v, want more than IDF(share) = %v", ix.IDF("rare"), ix.IDF("share"))
	}
	if ix.DocFreq("share") != 4 || ix.DocFreq("rare") != 1 || ix.DocFreq("absent") != 0 {
		t.Errorf("DocFreq: share %d rare %d absent %d", ix.DocFreq("share"), ix.DocFreq("rare"), ix.DocFreq("absent"))
	}
	rk := ix.Rank("shared rare", 0)
	if rk.Results[0].Skill != "one" {
		t.Fatalf("first = %s, want one", rk.Results[0].Skill)
	}
	rare := ix.Rank("rare", 0).Best
	common := ix.Rank("shared", 0).Best
	if rare <= common {
		t.Errorf("score for the rare term %v, want more than for the shared one %v", rare, common)
	}
}

func TestFieldWeights(t *testing.T) {
	// The same word once in the name, the description or a heading; the
	// rest of each skill is padding of equal weighted length.
	docs := []Doc{
		{Name: "inname", Description: "aa bb", Headings: []string{"cc dd"}},
		{Name: "other", Description: "inname bb", Headings: []string{"cc dd"}},
		{Name: "third", Description: "aa bb", Headings: []string{"inname dd"}},
	}
	p := DefaultParams()
	p.B = 0 // lengths differ slightly; compare field weights alone
	rk := NewIndex(docs, p).Rank("inname", 0)
	got := []string{}
	for _, r := range rk.Results {
		got = append(got, r.Skill)
	}
	if diff := cmp.Diff([]string{"inname", "other", "third"}, got); diff != "" {
		t.Errorf("order by field (-want +got):\n%s", diff)
	}
}

func TestParamsK1AndB(t *testing.T) {
	short := Doc{Name: "short", Description: "topic"}
	long := Doc{Name: "long", Description: "topic filler words padding more extra text here"}
	twice := Doc{Name: "twice", Description: "topic topic filler words padding more extra text"}
	docs := []Doc{short, long, twice, {Name: "pad", Description: "nothing"}}
	score := func(p Params, name string) float64 {
		for _, r := range NewIndex(docs, p).Rank("topic", 0).Results {
			if r.Skill == name {
				return r.Score
			}
		}
		t.Fatalf("%s not ranked", name)
		return 0
	}
	p := DefaultParams()
	p.Damping = 0
	// b = 0: no length normalisation, short and long score alike.
	p.B = 0
	if s, l := score(p, "short"), score(p, "long"); math.Abs(s-l) > 1e-9 {
		t.Errorf("b=0: short %v long %v, want equal", s, l)
	}
	// b = 1: the shorter skill wins.
	p.B = 1
	if s, l := score(p, "short"), score(p, "long"); s <= l {
		t.Errorf("b=1: short %v long %v, want short higher", s, l)
	}
	// k1 = 0: term frequency is ignored (binary BM25).
	p.K1, p.B = 0, 0.75
	if a, b := score(p, "twice"), score(p, "long"); math.Abs(a-b) > 1e-9 {
		t.Errorf("k1=0: twice %v long %v, want equal", a, b)
	}
	// Larger k1: a repeated term gains more.
	gain := func(k1 float64) float64 {
		p.K1, p.B = k1, 0
		return score(p, "twice") / score(p, "long")
	}
	if g1, g2 := gain(0.5), gain(2); g2 <= g1 {
		t.Errorf("tf gain with k1=2 %v, want more than with k1=0.5 %v", g2, g1)
	}
}

func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	breakers := []func(*Params){
		func(p *Params) { p.K1 = -1 }, func(p *Params) { p.B = 1.5 }, func(p *Params) { p.K1 = math.NaN() },
		func(p *Params) { p.NameWeight = math.Inf(1) }, func(p *Params) { p.Damping = -2 },
		func(p *Params) { p.PairWeight = -0.5 },
	}
	for _, brk := range breakers {
		p := DefaultParams()
		brk(&p)
		if p.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", p)
		}
		// NewIndex replaces them with defaults and still ranks.
		ix := NewIndex([]Doc{{Name: "plot-figure", Description: "plots"}, {Name: "x-y", Description: "z"}}, p)
		if err := ix.Params().Validate(); err != nil {
			t.Errorf("NewIndex kept invalid params: %v", err)
		}
		if len(ix.Rank("plot", 0).Results) != 1 {
			t.Errorf("rank with sanitised %+v found nothing", p)
		}
	}
}

func TestRankTiesAndSignal(t *testing.T) {
	docs := []Doc{
		{Name: "zeta-tool", Description: "convert files"},
		{Name: "alpha-tool", Description: "convert files"},
		{Name: "unrelated", Description: "draw pictures"},
	}
	ix := NewIndex(docs, DefaultParams())
	rk := ix.Rank("convert these files", 1)
	if len(rk.Results) != 2 {
		t.Fatalf("got %d results, want 2 (only positive scores)", len(rk.Results))
	}
	if rk.Results[0].Skill != "alpha-tool" || rk.Results[1].Skill != "zeta-tool" {
		t.Errorf("tie order %s, %s; want alpha-tool, zeta-tool", rk.Results[0].Skill, rk.Results[1].Skill)
	}
	if diff := cmp.Diff([]string{"convert", "convert_file", "file"}, rk.Results[0].Terms); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if !rk.Signal {
		t.Errorf("signal false at best %v", rk.Best)
	}
	if high := ix.Rank("convert these files", rk.Best+0.001); high.Signal {
		t.Errorf("signal true with minSignal above best %v", high.Best)
	}
	for _, prompt := range []string{"", "   ", "yes, that one", "the of and", "nothing matches zzz"} {
		rk := ix.Rank(prompt, 0)
		if len(rk.Results) != 0 || rk.Best != 0 || rk.Signal || rk.Results == nil {
			t.Errorf("Rank(%q) = %+v, want an empty non-nil ranking without signal", prompt, rk)
		}
	}
}

func TestNegativeSectionsNotIndexed(t *testing.T) {
	docs := []Doc{
		{Name: "plot-figure", Description: "Draw charts.", Headings: []string{"Plot", "When not to use", "Spreadsheets"}, Levels: []int{1, 2, 3}},
		{Name: "sheet-tool", Description: "Edit tables. Do not use for spreadsheets with macros."},
		{Name: "other", Description: "Something else"},
	}
	ix := NewIndex(docs, DefaultParams())
	if got := ix.Rank("spreadsheets", 0); len(got.Results) != 0 {
		t.Errorf("negative heading and sentence were indexed: %+v", got.Results)
	}
	if got := ix.Rank("when not to use", 0); len(got.Results) != 0 {
		t.Errorf("negative heading words were indexed: %+v", got.Results)
	}
	p := DefaultParams()
	p.IndexNegativeSentences = true
	if got := NewIndex(docs, p).Rank("spreadsheets", 0); len(got.Results) != 1 || got.Results[0].Skill != "sheet-tool" {
		t.Errorf("IndexNegativeSentences: %+v, want sheet-tool only", got.Results)
	}
}

func TestRankConcurrent(t *testing.T) {
	ix := NewIndex(generated(1000).docs, DefaultParams())
	want := ix.Rank(benchPrompt, 2)
	done := make(chan Ranking, 8)
	for i := 0; i < 8; i++ {
		go func() { done <- ix.Rank(benchPrompt, 2) }()
	}
	for i := 0; i < 8; i++ {
		if diff := cmp.Diff(want, <-done); diff != "" {
			t.Fatalf("concurrent rank differs:\n%s", diff)
		}
	}
}

func FuzzRank(f *testing.F) {
	docs := []Doc{
		{Name: "plot-figure", Description: "Draw charts and figures", Headings: []string{"Plot", "Avoid"}},
		{Name: "export-notebook", Description: "Export an executed notebook", Headings: []string{"Sequence"}},
		{Name: "交叉验证", Description: "模型 验证"},
	}
	ix := NewIndex(docs, DefaultParams())
	for _, s := range []string{"plot a figure", "", "交叉", "Ω≈ç√∫", "\xff\xfe", "a-b_c/d'e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		rk := ix.Rank(prompt, DefaultMinSignal)
		for i, r := range rk.Results {
			if !(r.Score > 0) || math.IsInf(r.Score, 0) {
				t.Fatalf("score %v", r.Score)
			}
			if i > 0 && (r.Score > rk.Results[i-1].Score ||
				r.Score == rk.Results[i-1].Score && r.Skill < rk.Results[i-1].Skill) {
				t.Fatalf("not sorted at %d: %+v", i, rk.Results)
			}
			if len(r.Terms) == 0 || !slices.IsSorted(r.Terms) {
				t.Fatalf("terms %v", r.Terms)
			}
		}
		if rk.Signal != (len(rk.Results) > 0 && rk.Best >= DefaultMinSignal) {
			t.Fatalf("signal %v best %v", rk.Signal, rk.Best)
		}
		_ = Terms(prompt)
		_ = IndexedDescription(prompt)
		_ = NegativeHeading(prompt)
	})
}

// TestNegativeCues checks that the fast pre-check of NegativeHeading lets
// every negative phrase through.
func TestNegativeCues(t *testing.T) {
	for _, p := range append(slices.Clone(negativeStarts), negativeInfixes...) {
		if !mayBeNegative(p) {
			t.Errorf("phrase %q has none of negativeCues", p)
		}
		if !NegativeHeading(p) {
			t.Errorf("NegativeHeading(%q) = false", p)
		}
	}
}

// TestNegativeFirstWord checks the pre-check of NegativeSentence lets every
// negative start through.
func TestNegativeFirstWord(t *testing.T) {
	for _, p := range negativeSentenceStarts {
		for _, s := range []string{p, strings.ToUpper(p) + " and more", p + "."} {
			if !NegativeSentence(s) {
				t.Errorf("NegativeSentence(%q) = false", s)
			}
		}
	}
	for _, s := range []string{"Don’t use it.", "DON'T use it.", "Skip this.", "Trigger on pixi.", "", "Ωmega"} {
		want := !strings.HasPrefix(s, "Trigger") && s != "" && s != "Ωmega"
		if got := NegativeSentence(s); got != want {
			t.Errorf("NegativeSentence(%q) = %v, want %v", s, got, want)
		}
	}
}
