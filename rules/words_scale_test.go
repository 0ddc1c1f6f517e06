package rules

import (
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
)

// indexWords lists the words of text as relevance.Words gives them, and
// the sorted distinct terms among them: what Words and TopicWords must
// return.
func indexWords(text string) (words, terms []string) {
	relevance.Words(text, func(w string, term bool) {
		words = append(words, w)
		if term {
			terms = append(terms, w)
		}
	})
	slices.Sort(terms)
	return words, slices.Compact(terms)
}

// TestWordsAreTheIndexWords: Words and TopicWords split texts of letters,
// digits, joiners, upper-case and non-ASCII letters, marks, invalid bytes
// and stop words as the relevance index does, so that a keyword rule, a
// topic and a ranking read the same words.
func TestWordsAreTheIndexWords(t *testing.T) {
	pieces := []string{"a", "Z", "é", "Ü", "İ", "ß", "σ", "Σ", "字", "7", "٣", "'", "’", "-", " ", "\n", ".", "\xff", "\xe2\x80", "\u0301", "\ufffd", "the", "The", "don't", "x-y", "--", "''"}
	r := rand.New(rand.NewSource(27))
	for n := range 5000 {
		var b strings.Builder
		for range r.Intn(30) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		text := b.String()
		words, terms := indexWords(text)
		if d := cmp.Diff(words, Words(text)); d != "" {
			t.Fatalf("case %d, Words(%q) (-index +got):\n%s", n, text, d)
		}
		if d := cmp.Diff(terms, TopicWords(text)); d != "" {
			t.Fatalf("case %d, TopicWords(%q) (-index +got):\n%s", n, text, d)
		}
	}
}

// hugePrompt is about n bytes of words, one in seven numbered (so the
// topic holds thousands of distinct words), some capitalised.
func hugePrompt(n int) string {
	words := []string{"write", "a", "Postgres", "migration", "adding", "an", "index", "on", "the", "orders", "table", "with", "tests"}
	var b strings.Builder
	b.Grow(n + 16)
	for i := 0; b.Len() < n; i++ {
		b.WriteString(words[i%len(words)])
		if i%7 == 0 {
			b.WriteString(strconv.Itoa(i % 5000))
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestJudgePromptHugePromptAllocation: judging a 16 MiB prompt (a topic to
// compare with, a body open to the judgement, a keyword rule naming it)
// allocates a few times the prompt, not the twenty and more times that
// converting it to runes and listing its words three times cost (issue
// 27, item 7), and the topic it keeps does not hold on to the prompt.
func TestJudgePromptHugePromptAllocation(t *testing.T) {
	prompt := hugePrompt(16 << 20)
	cfg := Default()
	cfg.MinKeep = 0
	cfg.Rules = []Rule{{SkillName: "sql", Keywords: []string{"postgres migration"}, Weight: 1}}
	c := PromptCase{Config: cfg, Prompt: prompt, Topic: []string{"deploy"}, Ranker: fixedRanker{},
		Bodies: []Body{{ID: "b1", Skill: "sql", Size: 4000}}}
	var out PromptOutcome
	grew := testio.Allocated(func() { out = JudgePrompt(c) })
	if !out.Judged || len(out.Topic) != MaxTopicWords || !out.Verdicts[0].Keep || out.Verdicts[0].Reason.Code != KeepRule {
		t.Fatalf("judged %v, %d topic words, verdict %+v", out.Judged, len(out.Topic), out.Verdicts[0])
	}
	ratio := float64(grew) / float64(len(prompt))
	t.Logf("a %d MiB prompt: %.1f MiB allocated (%.1f× the prompt)", len(prompt)>>20, float64(grew)/(1<<20), ratio)
	if ratio > 6 {
		t.Errorf("judging the prompt allocated %.1f× its size, want at most 6×", ratio)
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(prompt)))
	for _, w := range out.Topic {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(w))); p >= start && p < start+uintptr(len(prompt)) {
			t.Fatalf("topic word %q shares the prompt's memory", w)
		}
	}
}

// fixedRanker ranks one other skill whatever the text: a signal, with the
// body's skill unranked, so that the keyword rule decides.
type fixedRanker struct{}

func (fixedRanker) Rank(string, float64) relevance.Ranking {
	return relevance.Ranking{Results: []relevance.Result{{Skill: "other", Score: 5}}, Best: 5, Signal: true}
}

// TestTopicWordsMostFrequent: a prompt with more than MaxTopicWords
// distinct topic words keeps the most frequent, ties to the first in
// order, as a full count and sort would pick them.
func TestTopicWordsMostFrequent(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var b strings.Builder
	for range 20000 {
		// Skewed frequencies, many ties among the rare words.
		k := int(r.ExpFloat64() * 300)
		b.WriteString("w" + strconv.Itoa(k) + " the ")
	}
	text := b.String()
	counts := map[string]int{}
	relevance.Words(text, func(w string, term bool) {
		if term {
			counts[w]++
		}
	})
	if len(counts) <= MaxTopicWords {
		t.Fatalf("only %d distinct words: the test needs more than %d", len(counts), MaxTopicWords)
	}
	var all []string
	for w := range counts {
		all = append(all, w)
	}
	slices.SortFunc(all, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	want := slices.Clone(all[:MaxTopicWords])
	slices.Sort(want)
	if d := cmp.Diff(want, TopicWords(text)); d != "" {
		t.Errorf("TopicWords (-want +got):\n%s", d)
	}
}
