// Package gen writes synthetic Agent Skills packs for benchmarks and tests.
// A pack has one router skill, whose body maps intents to every other skill
// in a table and loads them, and N-1 working skills with names built from
// technical verbs and nouns, folded YAML descriptions (with a "SKIP …"
// sentence that names a sibling), ATX headings (a "When not to use"
// section among them, with sub-headings), and bodies of realistic length
// made of Zipf-distributed technical vocabulary, code fences holding "#"
// lines, and cross-references that call, mention or forbid other skills.
// Output depends only on the options: the generator owns its random
// source, seeded from Options.Seed, and reads no clock. Pack builds the
// skills in memory; Write puts them on disk as <dir>/<name>/SKILL.md.
package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Options shape a pack.
type Options struct {
	N    int    // number of skills, the router included
	Seed uint64 // same seed, same pack
	// MinBody and MaxBody bound the body length in bytes; lengths are
	// drawn log-uniformly between them (defaults 1,000 and 12,000: a
	// median near 3.5 KB, like the short half of real packs). The
	// router's body is as long as its table needs.
	MinBody, MaxBody int
}

// Skill is one generated skill.
type Skill struct {
	Name        string
	Description string
	Headings    []string // body headings, in order, outside code fences
	Levels      []int    // their levels
	Body        string
	Router      bool // the pack's entry skill
	// Calls, Mentions and Forbids are the other skills the body loads,
	// names without a verb, and names in a prohibition.
	Calls, Mentions, Forbids []string
}

// File returns the SKILL.md text: frontmatter, then the body.
func (s Skill) File() string {
	var b strings.Builder
	b.Grow(len(s.Body) + len(s.Description) + 128)
	b.WriteString("---\nname: ")
	b.WriteString(s.Name)
	b.WriteString("\ndescription: >\n")
	for _, line := range wrap(s.Description, 70) {
		b.WriteString("  ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if s.Router {
		b.WriteString("metadata:\n  version: \"1.0\"\n")
	}
	b.WriteString("---\n\n")
	b.WriteString(s.Body)
	return b.String()
}

// wrap folds text into lines of at most width bytes (longer words stay
// whole).
func wrap(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(text) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// Write writes skills under dir, one folder each, creating dir.
func Write(dir string, skills []Skill) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range skills {
		d := filepath.Join(dir, s.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(s.File()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generator holds the random source and the Zipf samplers.
type generator struct {
	r     *rand.Rand
	words *zipf
}

// zipf draws indexes 0..n-1 with probability proportional to 1/(i+1)^s,
// by binary search over the cumulative weights.
type zipf struct {
	cum []float64
	r   *rand.Rand
}

func newZipf(r *rand.Rand, n int, s float64) *zipf {
	z := &zipf{cum: make([]float64, n), r: r}
	total := 0.0
	for i := range n {
		total += 1 / math.Pow(float64(i+1), s)
		z.cum[i] = total
	}
	return z
}

func (z *zipf) next() int {
	x := z.r.Float64() * z.cum[len(z.cum)-1]
	lo, hi := 0, len(z.cum)-1
	for lo < hi {
		m := (lo + hi) / 2
		if z.cum[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (g *generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

// Pack builds a pack of o.N skills (none when N < 1). The router comes
// first and is named "route-<seed>-tasks".
func Pack(o Options) []Skill {
	if o.N < 1 {
		return nil
	}
	if o.MinBody <= 0 {
		o.MinBody = 1000
	}
	if o.MaxBody < o.MinBody {
		o.MaxBody = max(12000, o.MinBody)
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	g := &generator{r: r, words: newZipf(r, len(bodyWords), 1.05)}

	// Names: verb-topic-object, unique; a numeric suffix on collision.
	names := make([]string, o.N)
	names[0] = fmt.Sprintf("route-%d-tasks", o.Seed)
	taken := map[string]bool{names[0]: true}
	topics := make([]string, o.N)
	verbs := make([]string, o.N)
	objects := make([]string, o.N)
	for i := 1; i < o.N; i++ {
		v, t, ob := g.pick(nameVerbs), g.pick(topicWords), g.pick(objectWords)
		name := v + "-" + t + "-" + ob
		for k := 2; taken[name]; k++ {
			name = fmt.Sprintf("%s-%s-%s-%d", v, t, ob, k)
		}
		taken[name] = true
		names[i], verbs[i], topics[i], objects[i] = name, v, t, ob
	}

	skills := make([]Skill, o.N)
	for i := 1; i < o.N; i++ {
		skills[i] = g.working(o, i, names, verbs[i], topics[i], objects[i])
	}
	skills[0] = g.router(names, verbs, topics, objects)
	return skills
}

// other returns a random skill index other than i and the router.
func (g *generator) other(i, n int) int {
	if n <= 2 {
		return -1
	}
	for {
		j := 1 + g.r.IntN(n-1)
		if j != i {
			return j
		}
	}
}

func (g *generator) sentence(n int) string {
	var b strings.Builder
	for k := range n {
		w := bodyWords[g.words.next()]
		if k == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

func title(s string) string {
	parts := strings.Split(s, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

func (g *generator) working(o Options, i int, names []string, verb, topic, object string) Skill {
	n := len(names)
	s := Skill{Name: names[i]}
	tool := g.pick(toolWords)
	verb2, object2 := g.pick(nameVerbs), g.pick(objectWords)
	desc := fmt.Sprintf("%s %s %s for %s work with %s. Trigger when the user asks to %s the %s, %s a %s %s, or mentions %s.",
		title(verb), topic, object, topic, tool, verb, object, verb2, topic, object2, tool)
	if j := g.other(i, n); j > 0 {
		desc += fmt.Sprintf(" SKIP %s %s — load %s.", g.pick(nameVerbs), g.pick(objectWords), names[j])
	}
	if g.r.IntN(3) == 0 {
		desc += " " + g.sentence(6+g.r.IntN(8))
	}
	s.Description = desc

	target := int(math.Exp(math.Log(float64(o.MinBody)) + g.r.Float64()*(math.Log(float64(o.MaxBody))-math.Log(float64(o.MinBody)))))
	var b strings.Builder
	b.Grow(target + 512)
	head := func(level int, text string) {
		b.WriteString(strings.Repeat("#", level))
		b.WriteByte(' ')
		b.WriteString(text)
		b.WriteString("\n\n")
		s.Headings = append(s.Headings, text)
		s.Levels = append(s.Levels, level)
	}
	para := func() {
		for k := 0; k < 2+g.r.IntN(4); k++ {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(g.sentence(6 + g.r.IntN(14)))
		}
		b.WriteString("\n\n")
	}
	call := func() {
		j := g.other(i, n)
		if j < 0 {
			return
		}
		switch g.r.IntN(4) {
		case 0, 1:
			fmt.Fprintf(&b, "When the %s needs a %s, load `%s` and follow it.\n\n", object, g.pick(objectWords), names[j])
			s.Calls = append(s.Calls, names[j])
		case 2:
			fmt.Fprintf(&b, "The %s format is described in %s; keep it in mind.\n\n", object, names[j])
			s.Mentions = append(s.Mentions, names[j])
		default:
			fmt.Fprintf(&b, "Do not\nload `%s` for this %s.\n\n", names[j], object)
			s.Forbids = append(s.Forbids, names[j])
		}
	}
	head(1, title(names[i]))
	para()
	head(2, "When to use")
	para()
	head(2, "Procedure")
	step := 1
	for b.Len() < target*3/4 {
		head(3, fmt.Sprintf("Step %d: %s the %s", step, g.pick(nameVerbs), g.pick(objectWords)))
		para()
		if g.r.IntN(3) == 0 {
			fmt.Fprintf(&b, "```bash\n# %s the %s\n%s %s --%s\n```\n\n", g.pick(nameVerbs), object, tool, g.pick(nameVerbs), g.pick(objectWords))
		}
		if g.r.IntN(2) == 0 {
			call()
		}
		step++
	}
	head(2, "When not to use")
	para()
	head(3, fmt.Sprintf("%s %s", title(g.pick(nameVerbs)), g.pick(objectWords)))
	para()
	head(2, "References")
	for b.Len() < target {
		para()
	}
	call()
	s.Body = b.String()
	return s
}

func (g *generator) router(names, verbs, topics, objects []string) Skill {
	s := Skill{Name: names[0], Router: true}
	s.Description = "Session owner: list the installed skills and ask which to run. " +
		"Load a skill without asking only when the request is certain to be that skill. " +
		"Trigger on an ambiguous request, a finished stage, or \"what should we do next\"."
	var b strings.Builder
	b.Grow(64 * len(names))
	head := func(level int, text string) {
		fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", level), text)
		s.Headings = append(s.Headings, text)
		s.Levels = append(s.Levels, level)
	}
	head(1, title(names[0]))
	b.WriteString("Route the request; do not do the work yourself.\n\n")
	head(2, "Procedure")
	b.WriteString("For a certain request, load the mapped skill and stop:\n\n| User intent | Skill |\n|---|---|\n")
	for i := 1; i < len(names); i++ {
		fmt.Fprintf(&b, "| %s the %s %s | `%s` |\n", verbs[i], topics[i], objects[i], names[i])
		s.Mentions = append(s.Mentions, names[i])
	}
	b.WriteString("\n")
	if len(names) > 1 {
		fmt.Fprintf(&b, "When nothing is certain, load `%s` first.\n\n", names[1])
		s.Calls = append(s.Calls, names[1])
	}
	head(2, "Stop conditions")
	b.WriteString("Do not load every skill. Do not invent a missing skill's steps.\n")
	s.Body = b.String()
	return s
}
