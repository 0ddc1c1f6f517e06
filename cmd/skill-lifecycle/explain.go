package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func init() {
	register(command{name: "explain", summary: "rank the installed skills for a prompt, with matched terms and topic signal", run: runExplain})
}

// explainArgs are the parsed flags and prompt of explain.
type explainArgs struct {
	dirs      multiFlag
	asJSON    bool
	minSignal float64
	// minSignalSet: --min-signal was given; else the configuration's
	// minSignal applies.
	minSignalSet bool
	top          int
	loaded       string // --loaded: bodies to judge instead of ranking
	config       string // --config: the only skill-lifecycle.json to apply
	model        string // --model: the skill whose model to explain
	current      string // --current: the host's current model, provider/id[:level]
	prompt       string
}

// rankedSkill is one line of the ranking as explain prints it.
type rankedSkill struct {
	Skill string   `json:"skill"`
	Score float64  `json:"score"`
	Terms []string `json:"terms"`
}

// rankReport is the whole answer of explain without --loaded.
type rankReport struct {
	Prompt  string        `json:"prompt"`
	Signal  bool          `json:"signal"`
	Best    float64       `json:"best"`
	Ranking []rankedSkill `json:"ranking"`
}

// parseExplain reads explain's arguments. ok is false when the command
// should end with code (0 after --help, 2 on a usage error).
func parseExplain(args []string, stdout, stderr io.Writer) (a explainArgs, code int, ok bool) {
	fs := newFlags("explain", "skill-lifecycle explain", "PROMPT", `
Ranks the installed skills (Pi's discovery from the current directory, or the
--skills folders) for PROMPT with BM25 over names, descriptions and headings,
and shows each skill's score and matched terms and whether the prompt carries
a topic signal. Several words after the flags are joined into one prompt.
With --loaded, says which of those bodies the prompt keeps or archives; with
--model, which model a skill runs on (no PROMPT needed).`)
	fs.after = configRule
	fs.Var(&a.dirs, "skills", "a folder of skills `DIR` to use instead of Pi's discovery (repeatable)")
	fs.BoolVar(&a.asJSON, "json", false, "print one JSON object")
	fs.Float64Var(&a.minSignal, "min-signal", relevance.DefaultMinSignal, "best score a prompt needs to carry a topic signal (default: the configuration's minSignal)")
	fs.IntVar(&a.top, "top", 0, "print only the first N skills of the ranking (0: all)")
	fs.StringVar(&a.loaded, "loaded", "", "the loaded skills `A,B,C`, oldest first: say which of their bodies the prompt keeps or archives")
	fs.StringVar(&a.config, "config", "", "judge with this skill-lifecycle.json `FILE` alone instead of the configuration the sidecar reads (below)")
	fs.StringVar(&a.model, "model", "", "say which model `SKILL` would run on, from the --current model")
	fs.StringVar(&a.current, "current", "", "the current `MODEL` for --model, as provider/id or provider/id:thinking")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return a, code, false
	}
	fs.Visit(func(f *flag.Flag) { a.minSignalSet = a.minSignalSet || f.Name == "min-signal" })
	a.prompt = strings.Join(fs.Args(), " ")
	if strings.TrimSpace(a.prompt) == "" && a.model == "" {
		return a, fs.usageError(stderr, "a PROMPT is required"), false
	}
	if a.top < 0 {
		return a, fs.usageError(stderr, "--top %d: want 0 or more", a.top), false
	}
	if math.IsNaN(a.minSignal) || math.IsInf(a.minSignal, 0) {
		return a, fs.usageError(stderr, "--min-signal %v: want a finite number", a.minSignal), false
	}
	return a, 0, true
}

// rankPrompt ranks prompt with ix and shapes the report, keeping the first
// top results (all when top is 0).
func rankPrompt(ix rules.Ranker, prompt string, minSignal float64, top int) rankReport {
	rk := ix.Rank(prompt, minSignal)
	rep := rankReport{Prompt: prompt, Signal: rk.Signal, Best: rk.Best, Ranking: make([]rankedSkill, 0, len(rk.Results))}
	for i, r := range rk.Results {
		if top > 0 && i >= top {
			break
		}
		terms := r.Terms
		if terms == nil {
			terms = []string{}
		}
		rep.Ranking = append(rep.Ranking, rankedSkill{Skill: r.Skill, Score: r.Score, Terms: terms})
	}
	return rep
}

// writeRanking prints a report as one JSON object or as aligned text.
func writeRanking(w io.Writer, rep rankReport, minSignal float64, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(rep)
	}
	fmt.Fprintf(w, "prompt: %s\n", skills.TerminalText(rep.Prompt))
	if rep.Signal {
		fmt.Fprintf(w, "signal: yes (best score %.2f >= %.2f)\n", rep.Best, minSignal)
	} else {
		fmt.Fprintf(w, "signal: no (best score %.2f < %.2f): the prompt names no topic\n", rep.Best, minSignal)
	}
	if len(rep.Ranking) == 0 {
		fmt.Fprintln(w, "no skill matches")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tSKILL\tSCORE\tTERMS")
	for i, r := range rep.Ranking {
		fmt.Fprintf(tw, "%d\t%s\t%.2f\t%s\n", i+1, skills.TerminalText(r.Skill), r.Score, skills.TerminalText(strings.Join(r.Terms, " ")))
	}
	return tw.Flush()
}

func runExplain(args []string, stdout, stderr io.Writer) int {
	a, code, ok := parseExplain(args, stdout, stderr)
	if !ok {
		return code
	}
	cfg, ok := loadConfig(a.config, "skill-lifecycle explain", stderr)
	if !ok {
		return exitUsage
	}
	if a.minSignalSet {
		cfg.MinSignal = a.minSignal
	}
	cat, err := loadCatalog(a.dirs)
	if err != nil {
		fmt.Fprintf(stderr, "skill-lifecycle explain: %v\n", err)
		return exitOf(err)
	}
	softMemoryLimit()
	if n := len(cat.Diagnostics); n > 0 {
		fmt.Fprintf(stderr, "skill-lifecycle explain: %d diagnostics while loading skills (see 'skill-lifecycle list')\n", n)
	}
	if len(cat.Skills) == 0 {
		// Nothing to rank: say where explain looked, not that the
		// prompt names no topic.
		fmt.Fprintf(stderr, "skill-lifecycle explain: no skills found under %s\n", strings.Join(searched(a.dirs), ", "))
		if len(a.dirs) == 0 {
			fmt.Fprintln(stderr, "  (Pi's discovery from the current folder); give a folder of skills with --skills DIR")
		}
		return exitFailed
	}
	w := host.OfCatalog(cat, cfg)
	if a.model != "" {
		return explainModel(stdout, stderr, w, a)
	}
	if a.loaded != "" {
		rep := explainLoaded(w, splitLoaded(a.loaded), a.prompt)
		if err := writeLoaded(stdout, rep, a.asJSON); err != nil {
			fmt.Fprintf(stderr, "skill-lifecycle explain: %v\n", err)
			return 1
		}
		return 0
	}
	rep := rankPrompt(w.Catalog.Ranker, a.prompt, w.Config.MinSignal, a.top)
	if err := writeRanking(stdout, rep, w.Config.MinSignal, a.asJSON); err != nil {
		fmt.Fprintf(stderr, "skill-lifecycle explain: %v\n", err)
		return 1
	}
	return 0
}

// softMemoryLimit sets explain's soft heap limit, unless GOMEMLIMIT is
// given, once the catalogue is read: the catalogue's bodies are most of
// the live heap, and without a limit the collector lets the heap reach
// twice that before it runs. The limit is sized from the heap the
// catalogue holds (memoryLimitFor): a fixed 100 MiB made the collector run
// 349 times instead of 16 at 100,000 skills, whose heap is far above it.
func softMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		debug.SetMemoryLimit(memoryLimitFor(ms.HeapAlloc))
	}
}

// memoryLimitFor is the soft limit for a heap of heap bytes: half as much
// again, plus 64 MiB for the work, and never below 100 MiB (at 10,000
// skills the peak resident size then stays near 115 MB instead of 150).
func memoryLimitFor(heap uint64) int64 {
	return max(100<<20, int64(heap)+int64(heap)/2+64<<20)
}
