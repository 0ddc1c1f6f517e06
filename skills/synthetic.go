package skills

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// synthWords is the vocabulary of generated skills: everyday software
// work, so generated prompts and skills share terms the way real ones do.
var synthWords = strings.Fields(`api request response handler router middleware cache query index table
column migration schema backup restore deploy release rollback canary container image build test benchmark
profile trace log metric alert dashboard incident review commit branch merge rebase tag version changelog
config secret token auth session cookie header payload json yaml csv parquet stream queue worker job cron
retry timeout latency throughput memory cpu disk network dns tls certificate proxy gateway load balancer
pagination filter sort search upload download image video audio email notification webhook payment invoice
customer order product inventory shipment report export import sync lint format refactor rename dependency
upgrade vulnerability scan audit permission role policy quota limit error exception panic crash debug`)

// GenerateSkills writes n deterministic synthetic skills under dir, one
// folder per skill (skill-00000-word-word/SKILL.md), each with frontmatter,
// a body of about 1.5 KB with headings (including "When not to use") and
// references to a few other generated skills by name. The same n always
// gives the same files. It is for benchmarks and scale tests.
func GenerateSkills(dir string, n int) ([]string, error) {
	r := rand.New(rand.NewPCG(uint64(n), 0x5eed))
	word := func() string { return synthWords[r.IntN(len(synthWords))] }
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("skill-%05d-%s-%s", i, word(), word())
	}
	var b strings.Builder
	for i, name := range names {
		b.Reset()
		fmt.Fprintf(&b, "---\nname: %s\ndescription: >\n  %s\n  %s.\n", name, sentence(r, word, 10), sentence(r, word, 8))
		if i%7 == 0 {
			fmt.Fprintf(&b, "metadata:\n  version: 1.%d\n", i%10)
		}
		b.WriteString("---\n\n")
		fmt.Fprintf(&b, "# %s\n\n", strings.ReplaceAll(name[12:], "-", " "))
		for s := 0; s < 3; s++ {
			fmt.Fprintf(&b, "## %s %s\n\n", word(), word())
			for p := 0; p < 3; p++ {
				b.WriteString(sentence(r, word, 12) + ". " + sentence(r, word, 9) + ".\n")
			}
			if s == 1 && n > 1 {
				fmt.Fprintf(&b, "\nThen load %s for the %s step.\n", names[r.IntN(n)], word())
			}
			b.WriteString("\n```sh\n# " + word() + " " + word() + "\nmake " + word() + "\n```\n\n")
		}
		fmt.Fprintf(&b, "## When not to use\n\nFor %s work, do not load this skill; use %s instead.\n", word(), names[r.IntN(n)])
		folder := filepath.Join(dir, name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func sentence(r *rand.Rand, word func() string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = word()
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ")
}
