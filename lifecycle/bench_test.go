package lifecycle

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// syntheticPack returns n generated skills: names, descriptions of 12 to
// 30 words and four headings, drawn with a skewed distribution from a
// vocabulary of 3,000 words, so that some words are common and most rare,
// as in real packs.
func syntheticPack(n int, seed int64) []relevance.Doc {
	r := rand.New(rand.NewSource(seed))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%sx%d", string(rune('a'+i%26)), i)
	}
	zipf := rand.NewZipf(r, 1.1, 4, uint64(len(vocab)-1))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	docs := make([]relevance.Doc, n)
	for i := range docs {
		docs[i] = relevance.Doc{
			Name:        fmt.Sprintf("skill-%05d-%s", i, vocab[zipf.Uint64()]),
			Description: words(12 + r.Intn(19)),
			Headings:    []string{words(3), words(2), words(4), words(3)},
			Levels:      []int{2, 2, 3, 2},
		}
	}
	return docs
}

// BenchmarkUserPrompt measures one user-prompt decision: 30 loaded bodies
// judged against a prompt over a 10,000-skill pack ranked by relevance's
// BM25 index. Each iteration restores the 30 loads (not timed) and times
// UserPrompt alone.
func BenchmarkUserPrompt(b *testing.B) {
	docs := syntheticPack(10_000, 7)
	ix := relevance.NewIndex(docs, relevance.DefaultParams())
	infos := make([]SkillInfo, len(docs))
	for i, d := range docs {
		infos[i] = SkillInfo{Name: d.Name, Description: d.Description}
	}
	cat := Catalog{Skills: infos, Ranker: ix}
	cfg := rules.Default()
	r := rand.New(rand.NewSource(3))
	var recs []Record
	for i := 0; i < 30; i++ {
		d := docs[r.Intn(len(docs))]
		recs = append(recs, Record{V: RecordVersion, Action: ActLoad, ID: fmt.Sprintf("call-%d", i), Skill: d.Name, Size: 8000, Kind: ByTool, Run: 1 + i/3})
	}
	// Prompts built from the descriptions of some loaded and some other
	// skills, so that rankings have signal and some bodies go.
	var prompts []string
	for i := 0; i < 16; i++ {
		a := strings.Fields(docs[r.Intn(len(docs))].Description)
		c := strings.Fields(docs[r.Intn(len(docs))].Description)
		prompts = append(prompts, "please "+strings.Join(a[:min(6, len(a))], " ")+" and "+strings.Join(c[:min(5, len(c))], " "))
	}
	e := New(cat, cfg)
	archived := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e.onRestore(recs)
		b.StartTimer()
		ds := e.onPrompt(prompts[i%len(prompts)])
		for _, d := range ds {
			if d.Action == ActArchive {
				archived++
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(archived)/float64(b.N), "archived/op")
}

// BenchmarkSkillLoadMidRun measures one mid-run load with 30 bodies loaded
// in earlier runs, over the same 10,000-skill pack.
func BenchmarkSkillLoadMidRun(b *testing.B) {
	docs := syntheticPack(10_000, 7)
	ix := relevance.NewIndex(docs, relevance.DefaultParams())
	infos := make([]SkillInfo, len(docs))
	for i, d := range docs {
		infos[i] = SkillInfo{Name: d.Name, Description: d.Description}
	}
	e := New(Catalog{Skills: infos, Ranker: ix}, rules.Default())
	r := rand.New(rand.NewSource(5))
	var recs []Record
	for i := 0; i < 30; i++ {
		recs = append(recs, Record{V: RecordVersion, Action: ActLoad, ID: fmt.Sprintf("call-%d", i), Skill: docs[r.Intn(len(docs))].Name, Run: 1})
	}
	recs = append(recs, Record{V: RecordVersion, Action: ActRun, Run: 1})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e.onRestore(recs)
		e.onRunStart()
		b.StartTimer()
		e.onLoad(Load{ID: "new", Skill: docs[i%len(docs)].Name, Kind: ByTool})
	}
}

// fixedRanker returns one precomputed ranking, to time the engine and the
// rules without the index.
type fixedRanker relevance.Ranking

func (f fixedRanker) Rank(string, float64) relevance.Ranking { return relevance.Ranking(f) }

// BenchmarkUserPromptEngineOnly is BenchmarkUserPrompt with the ranking
// computed once beforehand: what the engine and the rules add to Rank, in
// the worst case where all 10,000 skills score.
func BenchmarkUserPromptEngineOnly(b *testing.B) {
	docs := syntheticPack(10_000, 7)
	var rk relevance.Ranking
	for i, d := range docs {
		rk.Results = append(rk.Results, relevance.Result{Skill: d.Name, Score: float64(len(docs) - i)})
	}
	rk.Best, rk.Signal = rk.Results[0].Score, true
	infos := make([]SkillInfo, len(docs))
	for i, d := range docs {
		infos[i] = SkillInfo{Name: d.Name, Description: d.Description}
	}
	e := New(Catalog{Skills: infos, Ranker: fixedRanker(rk)}, rules.Default())
	r := rand.New(rand.NewSource(3))
	var recs []Record
	for i := 0; i < 30; i++ {
		recs = append(recs, Record{V: RecordVersion, Action: ActLoad, ID: fmt.Sprintf("call-%d", i), Skill: docs[r.Intn(len(docs))].Name, Run: 1})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e.onRestore(recs)
		b.StartTimer()
		e.onPrompt("please explore the churn data and plot the monthly figures")
	}
}

// BenchmarkBeforeRequestCacheAware times the timing decision of one
// request in a session with 200 loaded bodies, 50 of them due for archive
// at spread positions, on a hot cache (nothing pays, so every due body is
// weighed and kept).
func BenchmarkBeforeRequestCacheAware(b *testing.B) {
	cfg := rules.Default()
	cfg.CacheAware.Enabled = true
	cfg.CacheAware.MaxDueShare = 1000
	cfg.CacheAware.HorizonTurns = 1000
	e := New(Catalog{}, cfg)
	e.onRunStart()
	var req Request
	off := int64(30000)
	for i := 0; i < 200; i++ {
		id := fmt.Sprintf("b%d", i)
		e.onLoad(Load{ID: id, Skill: fmt.Sprintf("s%d", i%150), Size: 8000, Kind: ByTool})
		req.Bodies = append(req.Bodies, BodyPosition{ID: id, Offset: off, Size: 8000})
		off += 8000 + 2000
	}
	req.Total = off
	req.SincePrevious = 5e9
	due := 0
	for _, bd := range e.Bodies() {
		if bd.Due != nil {
			due++
		}
	}
	if due != 50 {
		b.Fatalf("%d bodies due, want 50", due)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req.Number = 10
		if ds := e.onRequest(req); len(ds) != 0 {
			b.Fatalf("unexpected decisions %v", ds)
		}
	}
}
