package replay

import (
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// WriteTable prints the strategies' table, then one line per replayed
// branch comparing the recorded usage with keep-all's rebuilt requests.
func WriteTable(w io.Writer, rep *Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tcost USD\tcost %\tpeak ctx\tpeak %\treloads\torphan uses\tcomebacks\tarchives\trequests\tsessions\t")
	for _, s := range rep.Strategies {
		fmt.Fprintf(tw, "%s\t%.4f\t%.1f%%\t%d\t%.1f%%\t%d\t%d\t%d\t%d\t%d\t%d\t\n", skills.TerminalText(s.Name), s.CostUSD, s.CostPct,
			s.PeakContext, s.PeakPct, s.Reloads, s.OrphanUses, s.Comebacks, s.Archives, s.Requests, s.Sessions)
	}
	tw.Flush()
	ttl := "none"
	if rep.TTLSeconds > 0 {
		ttl = fmt.Sprintf("%gs", rep.TTLSeconds)
	}
	fmt.Fprintf(w, "\n%d files, %.1f MB; cache lifetime %s; peak ctx sums each session's largest request (tokens)\n",
		rep.Files, float64(rep.Bytes)/1e6, ttl)
	comebacks := 0
	for _, s := range rep.Strategies {
		comebacks += s.Comebacks
	}
	switch {
	case rep.NoComebacks:
		fmt.Fprintln(w, "comeback model off (--no-comebacks): the agent reloads an archived skill only where the session shows it using the skill's files")
	case rep.AllComebacks:
		fmt.Fprintln(w, "every comeback (--all-comebacks): the agent reloads every archived skill a prompt asks for; --no-comebacks gives the other end of the band")
	case comebacks > 0:
		fmt.Fprintln(w, "comebacks are inferred from each prompt (docs/replay.md); --no-comebacks and --all-comebacks give the ends of the band: the agent never comes back, or to every skill asked for")
	}
	if len(rep.Branches) == 0 {
		return
	}
	fmt.Fprintln(w, "\nkeep-all against the recorded usage, per session:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "session\trequests\tcalibration\tprompt exact\tprompt ≤2%\tinput ≤2%\trecorded USD\tkeep-all USD\t")
	for _, b := range rep.Branches {
		name := branchName(rep, b)
		ka := 0.0
		if len(b.Strategies) > 0 {
			ka = b.Strategies[0].CostUSD
		}
		a := b.Accuracy
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d/%d\t%d/%d\t%d/%d\t%.4f\t%.4f\t\n", name, b.Requests, calText(b.Calibration),
			a.PromptExact, a.Compared, a.PromptWithin2, a.Compared, a.InputWithin2, a.Compared, b.RecordedCostUSD, ka)
	}
	tw.Flush()
	fmt.Fprintln(w, calibrationNote(rep))
}

// calibrationNote is the line under the calibration table: the token
// columns check the rebuilt requests; the two USD columns differ by the
// pricing, not by the tokens.
func calibrationNote(rep *Report) string {
	life := "no cache lifetime"
	if rep.TTLSeconds > 0 {
		life = fmt.Sprintf("a cache that expires %gs after a request", rep.TTLSeconds)
	}
	return "the token columns check the rebuilt requests; the USD columns differ by pricing alone: recorded is what the provider billed, " +
		"keep-all the same requests as replay prices every strategy (cache writes at the write price, " + life + ")"
}

// decisionWidth is the width --decisions wraps its reasons to.
const decisionWidth = 100

// WriteDecisions prints, per branch and engine strategy, what the engine
// decided and why, request by request (Options.Decisions): one line per
// decision (request, turn, action, skill and code, aligned), then its
// reason on indented lines wrapped to decisionWidth. The note of the
// prices the timing was weighed with, the same on most reasons, is said
// once under the heading instead.
func WriteDecisions(w io.Writer, rep *Report) {
	for _, b := range rep.Branches {
		name := branchName(rep, b)
		for _, s := range b.Strategies {
			if len(s.Decisions) == 0 {
				continue
			}
			fmt.Fprintf(w, "\n%s, %s:\n", name, skills.TerminalText(s.Name))
			note := commonNote(s.Decisions)
			if note != "" {
				fmt.Fprintf(w, "  (timing weighed with %s)\n", skills.TerminalText(note))
			}
			heads := make([][3]string, len(s.Decisions))
			var wide [3]int
			for i, d := range s.Decisions {
				heads[i] = [3]string{fmt.Sprintf("request %d", d.Request), fmt.Sprintf("turn %d", d.Turn), d.Action}
				for k := range wide {
					wide[k] = max(wide[k], len(heads[i][k]))
				}
			}
			for i, d := range s.Decisions {
				what := d.Skill
				if what == "" {
					what = d.ID
				}
				what = skills.TerminalText(what)
				if d.Code != "" {
					what += " (" + d.Code + ")"
				}
				h := heads[i]
				line := fmt.Sprintf("  %-*s  %-*s  %-*s  %s", wide[0], h[0], wide[1], h[1], wide[2], h[2], what)
				fmt.Fprintln(w, strings.TrimRight(line, " "))
				text := d.Text
				if note != "" {
					text = strings.Replace(text, " ["+note+"]", "", 1)
				}
				for _, l := range wrapText(skills.TerminalText(text), decisionWidth-6) {
					fmt.Fprintf(w, "      %s\n", l)
				}
			}
		}
	}
}

// commonNote is the bracketed note of the prices (and lifetime) the
// timing was weighed with ("[p/m: cache read 0.1 and write 1.25 times
// its input price]", lifecycle's withNote) that most of decisions carry,
// when at least two do; "" otherwise.
func commonNote(ds []DecisionNote) string {
	count := map[string]int{}
	best := ""
	for _, d := range ds {
		i := strings.LastIndex(d.Text, " [")
		if i < 0 {
			continue
		}
		n, _, ok := strings.Cut(d.Text[i+2:], "]")
		if !ok || !(strings.Contains(n, "times its input price") || strings.Contains(n, "cache lifetime")) {
			continue
		}
		count[n]++
		if count[n] > count[best] || (count[n] == count[best] && n < best) {
			best = n
		}
	}
	if count[best] < 2 {
		return ""
	}
	return best
}

// wrapText breaks text into lines of at most width characters, at
// spaces (a word longer than width has a line of its own).
func wrapText(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		l := utf8.RuneCountInString(word)
		if n > 0 && n+1+l > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(word)
		n += l
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// branchName names a replayed branch on the terminal: its session file's
// name (and leaf, with every branch replayed), as skills.TerminalText.
func branchName(rep *Report, b BranchReport) string {
	name := filepath.Base(b.File)
	if rep.AllBranches && b.Leaf != "" {
		name += "@" + b.Leaf
	}
	return skills.TerminalText(name)
}

func calText(c Calibration) string {
	switch c.Method {
	case "exact":
		return fmt.Sprintf("exact, header %d", c.HeaderChars)
	case "fit":
		return fmt.Sprintf("fit, header %d, %.2f ch/tok", c.HeaderChars, c.CharsPerToken)
	}
	return "default"
}

// LoadedSkill is a skill that the replayed branches load: by a full read
// of its SKILL.md, a skill tool call or a /skill: command. InPack says the
// skill pack (--skills) names it: only then does the engine know it, so
// only then can a strategy archive its body. Loads counts its loads over
// the branches replayed (with AllBranches, a load on a shared stretch
// counts once per branch); Folders are the folders holding its skill
// folder, as the sessions name them.
type LoadedSkill struct {
	Name    string   `json:"name"`
	Loads   int      `json:"loads"`
	InPack  bool     `json:"inPack"`
	Folders []string `json:"folders,omitempty"`
}

// noteLoads adds a branch's loads, known or not to the pack, to
// Report.SkillsLoaded.
func (r *Runner) noteLoads(info *pathInfo) {
	if r.loaded == nil {
		r.loaded = map[string]*LoadedSkill{}
	}
	p := r.opts.Pack
	add := func(name, folder string, known bool) {
		ls := r.loaded[name]
		if ls == nil {
			ls = &LoadedSkill{Name: name, InPack: known && p != nil && p.Names != nil && p.Names[name]}
			r.loaded[name] = ls
		}
		ls.Loads++
		if folder == "" {
			return
		}
		parent := path.Dir(folder)
		if !slices.Contains(ls.Folders, parent) {
			ls.Folders = append(ls.Folders, parent)
		}
	}
	for _, ls := range info.loads {
		for _, l := range ls {
			add(l.Skill, l.Folder, true)
		}
	}
	for name, folders := range info.unknown {
		for _, f := range folders {
			add(name, f, false)
		}
	}
}

// loadedSkills is Report.SkillsLoaded: the skills noted, by name.
func (r *Runner) loadedSkills() []LoadedSkill {
	out := make([]LoadedSkill, 0, len(r.loaded))
	for _, ls := range r.loaded {
		out = append(out, *ls)
	}
	slices.SortFunc(out, func(a, b LoadedSkill) int { return strings.Compare(a.Name, b.Name) })
	return out
}
