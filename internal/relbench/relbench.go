// Package relbench measures the relevance ranking on labelled packs of
// skills: hit@1 and hit@3 of the expected skill, how often the keep rule
// keeps the skill that was loaded when a prompt was given (its "host"), how
// many skills it keeps per prompt, and whether prompts without a topic stay
// silent. It ranks with the engine's own catalog (lifecycle.CatalogOf) and
// judges with the engine's own keep rule (rules.JudgePrompt), so what it
// reports is what a session would do. `go run ./internal/relbench` prints
// the table for every dev pack; relbench_test.go holds the floors.
package relbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Case is one labelled prompt, in the format of the shared corpora's
// ml-pack/dev-cases.jsonl, plus NoTopic for prompts that only make sense
// mid-conversation ("Thanks, looks good.") and must carry no topic signal.
type Case struct {
	Prompt string   `json:"prompt"`
	Expect []string `json:"expect"`
	Avoid  []string `json:"avoid"`
	Kind   string   `json:"kind"` // certain, ask, other
	Host   string   `json:"host"` // the skill loaded when the prompt was given
	Origin string   `json:"origin"`
	// NoTopic marks a prompt without a topic: no skill may reach the
	// signal threshold for it.
	NoTopic bool `json:"notopic,omitempty"`
	Line    int  `json:"-"`
}

// Pack is a labelled pack: its skills and its cases.
type Pack struct {
	Name   string
	Skills []skills.Skill
	Cases  []Case
}

// LoadPack reads every dir/*/SKILL.md (subfolders of dir, one level) and
// the cases file (JSON lines).
func LoadPack(name, dir, casesFile string) (*Pack, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "SKILL.md"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no */SKILL.md", dir)
	}
	sort.Strings(paths)
	p := &Pack{Name: name}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		s, ds := skills.Parse(path, data)
		for _, d := range ds {
			if d.Severity == skills.Error {
				return nil, fmt.Errorf("%v", d)
			}
		}
		s.Dir = filepath.Dir(path)
		p.Skills = append(p.Skills, *s)
	}
	data, err := os.ReadFile(casesFile)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, s := range p.Skills {
		names[s.Name] = true
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", casesFile, line, err)
		}
		c.Line = line
		for _, n := range append(append(slices.Clone(c.Expect), c.Avoid...), c.Host) {
			if n != "" && !names[n] {
				return nil, fmt.Errorf("%s:%d: no skill %q in %s", casesFile, line, n, dir)
			}
		}
		p.Cases = append(p.Cases, c)
	}
	return p, nil
}

// Report holds one pack's figures.
type Report struct {
	Pack   string
	Skills int
	// Certain cases with an expected skill: how many, and how many have
	// one of them first, in the top 3.
	Certain, Hit1, Hit3 int
	// Signal: certain cases whose best score reaches minSignal (a topic
	// the keep rule acts on).
	Signal int
	// Avoid1: cases whose first skill is one they must avoid, of
	// AvoidCases with an avoid list and a signal.
	Avoid1, AvoidCases int
	// Host cases: prompts given while a skill was loaded (origin other
	// than "router": the routing skill's prompts are about the skills it
	// routes to); HostKept of
	// them keep it (relevant, no signal, or not judged). Judged of them
	// were judged with a signal, and kept KeptJudged skills in all (of
	// the whole catalog, as if every skill were loaded).
	Host, HostKept, Judged, KeptJudged int
	// HostRanked: host cases whose host is within the keep rule's top K
	// or relative score, signal or not (a figure the scale of the scores
	// does not move).
	HostRanked, HostTopical int
	// RuleKept: over the topical host cases, the skills the rule keeps
	// when the prompt is judged (top K or relative score), signal or not.
	RuleKept int
	// NoTopic prompts, and how many of them had a signal (should be 0).
	NoTopic, NoTopicSignal int
	// Lines describe each miss (verbose output).
	Lines []string
}

// KeepConfig is the keep rule measured: the defaults, with minKeep 0 and
// the entry not pinned, so that only relevance keeps a body.
func KeepConfig() rules.Config {
	c := rules.Default()
	c.MinKeep = 0
	c.PinEntrySkill = false
	return c
}

// Ranker builds the ranker the engine would build for the pack.
func Ranker(p *Pack) rules.Ranker { return lifecycle.CatalogOf(p.Skills, nil).Ranker }

// RankerWith builds the pack's index with params instead of the defaults.
func RankerWith(p *Pack, params relevance.Params) rules.Ranker {
	docs := make([]relevance.Doc, len(p.Skills))
	for i := range p.Skills {
		docs[i] = lifecycle.DocOf(&p.Skills[i])
	}
	return relevance.NewIndex(docs, params)
}

// Evaluate measures r on p with the keep rule cfg.
func Evaluate(p *Pack, r rules.Ranker, cfg rules.Config) Report {
	rep := Report{Pack: p.Name, Skills: len(p.Skills)}
	bodies := make([]rules.Body, len(p.Skills))
	for i, s := range p.Skills {
		bodies[i] = rules.Body{ID: fmt.Sprintf("b%d", i), Skill: s.Name}
	}
	for _, c := range p.Cases {
		rk := r.Rank(c.Prompt, cfg.MinSignal)
		pos := -1
		for i, res := range rk.Results {
			if slices.Contains(c.Expect, res.Skill) {
				pos = i
				break
			}
		}
		miss := false
		hostMiss := ""
		if c.Kind == "certain" && len(c.Expect) > 0 {
			rep.Certain++
			if pos == 0 {
				rep.Hit1++
			} else {
				miss = true
			}
			if pos >= 0 && pos < 3 {
				rep.Hit3++
			}
			if rk.Signal {
				rep.Signal++
			}
		}
		if len(c.Avoid) > 0 && rk.Signal {
			rep.AvoidCases++
			if len(rk.Results) > 0 && slices.Contains(c.Avoid, rk.Results[0].Skill) {
				rep.Avoid1++
				miss = true
			}
		}
		if c.NoTopic {
			rep.NoTopic++
			if rk.Signal {
				rep.NoTopicSignal++
				miss = true
			}
		}
		if c.Host != "" && c.Origin != "router" {
			rep.Host++
			if !c.NoTopic {
				rep.HostTopical++
			}
			if !c.NoTopic {
				for i, res := range rk.Results {
					if i < cfg.TopK || res.Score >= cfg.RelativeScore*rk.Best {
						rep.RuleKept++
					}
				}
			}
			for i, res := range rk.Results {
				if res.Skill == c.Host && !c.NoTopic {
					if i < cfg.TopK || res.Score >= cfg.RelativeScore*rk.Best {
						rep.HostRanked++
					}
					break
				}
			}
			out := rules.JudgePrompt(rules.PromptCase{Config: cfg, Bodies: hostLast(bodies, c.Host), Prompt: c.Prompt, Ranker: r})
			kept := 0
			for _, v := range out.Verdicts {
				if v.Keep {
					kept++
				}
				if v.Skill == c.Host {
					if v.Keep {
						rep.HostKept++
					} else {
						miss = true
						hostMiss = v.Reason.Text
					}
				}
			}
			if out.Judged && rk.Best >= cfg.MinSignal {
				rep.Judged++
				rep.KeptJudged += kept
			}
		}
		if miss {
			l := describe(c, rk, pos)
			if hostMiss != "" {
				l = "HOST MISS (" + hostMiss + ") " + l
			}
			rep.Lines = append(rep.Lines, l)
		}
	}
	return rep
}

// hostLast orders bodies as a session holds them when a prompt follows
// the host's task: every other skill loaded by earlier runs (run 1), the
// host loaded last, by the latest run (run 2).
func hostLast(bodies []rules.Body, host string) []rules.Body {
	out := make([]rules.Body, 0, len(bodies))
	var h []rules.Body
	for _, b := range bodies {
		b.Run = 1
		if b.Skill == host {
			b.Run = 2
			h = append(h, b)
			continue
		}
		out = append(out, b)
	}
	return append(out, h...)
}

func describe(c Case, rk relevance.Ranking, pos int) string {
	var top []string
	for i := 0; i < len(rk.Results) && i < 3; i++ {
		r := rk.Results[i]
		top = append(top, fmt.Sprintf("%s %.2f %v", r.Skill, r.Score, r.Terms))
	}
	return fmt.Sprintf("line %d pos=%d expect=%v host=%s notopic=%v %q\n      top: %s",
		c.Line, pos, c.Expect, c.Host, c.NoTopic, c.Prompt, strings.Join(top, "; "))
}

func pct(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// Table formats reports as a markdown table.
func Table(reps []Report) string {
	var b strings.Builder
	b.WriteString("| pack | skills | certain | hit@1 | hit@3 | signal | avoid@1 | host kept | host ranked | kept/prompt (judged) | no-topic silent |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range reps {
		kpp := "—"
		if r.Judged > 0 {
			kpp = fmt.Sprintf("%.2f (%d/%d)", float64(r.KeptJudged)/float64(r.Judged), r.Judged, r.Host)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %d/%d | %s (%d/%d) | %s | %s | %d/%d |\n",
			r.Pack, r.Skills, r.Certain, pct(r.Hit1, r.Certain), pct(r.Hit3, r.Certain), pct(r.Signal, r.Certain),
			r.Avoid1, r.AvoidCases, pct(r.HostKept, r.Host), r.HostKept, r.Host, pct(r.HostRanked, r.HostTopical), kpp,
			r.NoTopic-r.NoTopicSignal, r.NoTopic)
	}
	return b.String()
}
