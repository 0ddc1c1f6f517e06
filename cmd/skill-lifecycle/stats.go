package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/replay"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// sessionStats answers /skills-stats for the sidecar: the session file Pi
// recorded, replayed by the code of `skill-lifecycle replay --recorded
// --no-defaults --skills DIR --cache-ttl TTL FILE` (the same runner,
// pricing and options), keep-all (the session without the extension)
// against recorded (the archives the bridge made, where it made them).
func sessionStats(file string, folders []string, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		ttl = replay.DefaultTTL
	}
	opts := replay.Options{TTL: ttl, Strategies: []replay.StrategySpec{replay.RecordedSpec()}}
	if len(folders) > 0 {
		sc := skills.Discover(skills.Options{Paths: folders, NoDefaults: true})
		opts.Pack = replay.PackOf(sc, nil)
	}
	r := replay.NewRunner(opts)
	var failed error
	r.AddFiles([]replay.Input{{Path: file}}, func(_ replay.Input, o replay.Outcome) {
		switch {
		case o.Err != nil:
			failed = o.Err
		case o.Skipped != "":
			failed = fmt.Errorf("%s: %s", file, o.Skipped)
		}
	})
	if failed != nil {
		return "", failed
	}
	rep := r.Report()
	var without, with *replay.StrategyResult
	for i := range rep.Strategies {
		switch rep.Strategies[i].Name {
		case replay.KeepAllName:
			without = &rep.Strategies[i]
		case replay.RecordedName:
			with = &rep.Strategies[i]
		}
	}
	if rep.Files == 0 || without == nil || with == nil || without.Requests == 0 {
		return "This session has no model request recorded yet.", nil
	}
	return statsText(file, folders, ttl, without, with), nil
}

// statsText writes the answer: both sessions in input tokens and
// dollars, the saving, the largest request, and the replay command that
// gives the same figures.
func statsText(file string, folders []string, ttl time.Duration, without, with *replay.StrategyResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This session so far (current branch, %d model requests, cache lifetime %s):\n", without.Requests, ttl)
	fmt.Fprintf(&b, "  without skill-lifecycle  %s input tokens  $%.4f  largest request %s\n", grouped(without.PromptTokens), without.CostUSD, grouped(without.PeakContext))
	fmt.Fprintf(&b, "  with skill-lifecycle     %s input tokens  $%.4f  largest request %s\n", grouped(with.PromptTokens), with.CostUSD, grouped(with.PeakContext))
	saved := without.CostUSD - with.CostUSD
	pct := 0.0
	if without.CostUSD > 0 {
		pct = 100 * saved / without.CostUSD
	}
	fmt.Fprintf(&b, "  saved                    %s input tokens  $%.4f (%.1f%%), %d %s\n", grouped(without.PromptTokens-with.PromptTokens), saved, pct, with.Archives, plural(with.Archives, "archive", "archives"))
	cmd := "skill-lifecycle replay --recorded --no-defaults --cache-ttl " + ttl.String()
	if len(folders) == 1 {
		cmd += " --skills " + shellQuote(folders[0])
	}
	fmt.Fprintf(&b, "Same figures: %s %s", cmd, shellQuote(file))
	return skills.TerminalLines(b.String())
}

// grouped writes n with thousands separators: 1,234,567.
func grouped(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
