package host

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// The /skills-* commands: what each answers the user, as terminal text.

// commandSpecs lists the slash commands the host registers (names without
// the slash).
func commandSpecs() []CommandSpec {
	return []CommandSpec{
		{Name: "skills-list", Description: "List the skills with their role and whether their body is loaded, archived or pinned; words given, those whose name or description holds them: /skills-list [words]"},
		{Name: "skills-explain", Description: "Rank the skills for a prompt and say which loaded bodies would stay or go: /skills-explain <prompt>"},
		{Name: "skills-pin", Description: "Keep a skill's body loaded whatever the topic: /skills-pin <name>"},
		{Name: "skills-unpin", Description: "Let a pinned skill's body be archived again: /skills-unpin <name>"},
		{Name: "skills-reload", Description: "Re-read the skills and skill-lifecycle.json"},
		{Name: "skills-model", Description: "Show the model tiers in effect; /skills-model reset restores the model chosen before a tier switch"},
		{Name: "skills-on", Description: "Turn skill lifecycle management on for this session"},
		{Name: "skills-off", Description: "Turn skill lifecycle management off for this session (nothing is archived)"},
		{Name: "skills-stats", Description: "This session so far with and without skill-lifecycle, in tokens and dollars (as `skill-lifecycle replay --recorded` computes it)"},
	}
}

// commandFuncs maps command names to their implementation.
var commandFuncs = map[string]func(*Session, string) (CommandResult, error){
	"skills-list":    (*Session).cmdList,
	"skills-explain": (*Session).cmdExplain,
	"skills-pin":     (*Session).cmdPin,
	"skills-unpin":   (*Session).cmdUnpin,
	"skills-reload":  (*Session).cmdReload,
	"skills-model":   (*Session).cmdModel,
	"skills-on":      func(s *Session, _ string) (CommandResult, error) { return s.cmdSwitch(true) },
	"skills-off":     func(s *Session, _ string) (CommandResult, error) { return s.cmdSwitch(false) },
	"skills-stats":   (*Session).cmdStats,
}

// Command runs a /skills-* command.
func (s *Session) Command(p CommandParams) (CommandResult, error) {
	name := strings.TrimPrefix(strings.TrimSpace(p.Name), "/")
	if name == "" {
		return CommandResult{}, missing("name")
	}
	f, ok := commandFuncs[name]
	if !ok {
		names := make([]string, 0, len(commandFuncs))
		for n := range commandFuncs {
			names = append(names, n)
		}
		sort.Strings(names)
		return CommandResult{}, &ParamError{"name", fmt.Sprintf("unknown command %q (known: %s)", name, strings.Join(names, ", "))}
	}
	s.sessionFile = p.SessionFile
	res, err := f(s, strings.TrimSpace(p.Args))
	// The answer is shown on the user's terminal: the skill text in it was
	// made visible piece by piece (skills.TerminalText); this catches any
	// control character left, keeping the answer's own lines.
	res.Text = skills.TerminalLines(res.Text)
	return res, err
}

// maxListed is how many skills /skills-list names at most: past it, the
// skills with a tag, then the first in host order, and a line on the rest
// (10,000 skills were a 1.2 MB answer, 100,000 a 12.8 MB one).
const maxListed = 200

// cmdList answers /skills-list [words]: every skill (words given, those
// whose name or description holds them all) with its role, whether a body
// of it is loaded, archived or pinned, and the entry skill.
func (s *Session) cmdList(args string) (CommandResult, error) {
	cat, eng := s.world.Skills, s.eng
	onOff := "on"
	if !eng.Enabled() {
		onOff = "off"
	}
	if len(cat.list) == 0 {
		return CommandResult{Text: fmt.Sprintf("No skills found (archiving %s).", onOff), Level: "info"}, nil
	}
	state := map[string]string{}
	for _, b := range eng.Bodies() {
		if b.Archived {
			if state[b.Skill] == "" {
				state[b.Skill] = "archived"
				if b.Reason != nil && b.Reason.Code == rules.ArchiveRouted {
					// Pinned, yet archived: say why.
					state[b.Skill] = "archived once it had routed"
				}
			}
		} else {
			state[b.Skill] = "loaded"
			if n := len(b.Resources); n > 0 {
				state[b.Skill] = "loaded, with " + lifecycle.FilesOfFolder(n)
			}
		}
	}
	entry, entrySrc := eng.Entry()
	words := strings.Fields(strings.ToLower(args))
	matches := func(sk HostSkill) bool {
		if len(words) == 0 {
			return true
		}
		text := strings.ToLower(sk.Name + " " + sk.Description)
		for _, w := range words {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	}
	type line struct {
		sk   HostSkill
		tags []string
	}
	var lines []line
	for _, sk := range cat.list {
		if !matches(sk) {
			continue
		}
		var tags []string
		if sk.Name == entry {
			tags = append(tags, "entry ("+entrySrc+")")
		}
		if h := eng.HelperOf(sk.Name); h != "" {
			tags = append(tags, "helper")
		}
		if p := eng.PinOf(sk.Name); p != "" {
			tags = append(tags, "pinned ("+string(p)+")")
		}
		if st := state[sk.Name]; st != "" {
			tags = append(tags, st)
		}
		if sk.DisableModelInvocation {
			tags = append(tags, "only through /skill:"+skills.TerminalText(sk.Name))
		}
		lines = append(lines, line{sk, tags})
	}
	found := len(lines)
	var b strings.Builder
	if len(words) > 0 {
		fmt.Fprintf(&b, "%d of %d skills match %q (archiving %s):\n", found, len(cat.list), skills.TerminalText(strings.Join(words, " ")), onOff)
	} else {
		fmt.Fprintf(&b, "%d skills (archiving %s):\n", len(cat.list), onOff)
	}
	// Within maxListed the host's order; past it the tagged skills first,
	// each group in the host's order.
	if found > maxListed {
		rank := func(l line) int {
			if len(l.tags) > 0 {
				return 0
			}
			return 1
		}
		slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(rank(a), rank(b)) })
	}
	for _, l := range lines[:min(found, maxListed)] {
		note := ""
		if len(l.tags) > 0 {
			note = " [" + strings.Join(l.tags, ", ") + "]"
		}
		fmt.Fprintf(&b, "- %s%s: %s\n", skills.TerminalText(l.sk.Name), note, skills.TerminalText(truncate(oneLine(l.sk.Description), 100)))
	}
	if found > maxListed {
		fmt.Fprintf(&b, "… and %d more: /skills-list <words> lists the skills whose name or description holds them all.", found-maxListed)
	}
	return CommandResult{Text: strings.TrimRight(b.String(), "\n"), Level: "info"}, nil
}

// cmdExplain answers /skills-explain <prompt>: the skills ranked for the
// prompt and what it would do to each live body.
func (s *Session) cmdExplain(prompt string) (CommandResult, error) {
	if prompt == "" {
		return CommandResult{}, &ParamError{"args", "missing (usage: /skills-explain <prompt>)"}
	}
	w, eng := s.world, s.eng
	cfg := eng.Config()
	var b strings.Builder
	rk := w.Catalog.Ranker.Rank(prompt, cfg.MinSignal)
	fmt.Fprintf(&b, "Ranking for %q", truncate(oneLine(prompt), 80))
	if !rk.Signal {
		fmt.Fprintf(&b, " (no skill reaches the minimum signal %.2g)", cfg.MinSignal)
	}
	b.WriteString(":\n")
	if len(rk.Results) == 0 {
		b.WriteString("  no skill matches\n")
	}
	for i, r := range rk.Results {
		if i == 8 {
			fmt.Fprintf(&b, "  … %d more\n", len(rk.Results)-i)
			break
		}
		fmt.Fprintf(&b, "  %d. %s %.2f (%s)\n", i+1, skills.TerminalText(r.Skill), r.Score, skills.TerminalText(strings.Join(r.Terms, ", ")))
	}
	if l := eng.CacheLifetime().Describe(); l != "" {
		fmt.Fprintf(&b, "Cache lifetime, from the provider's usage in this session: %s.\n", l)
	}
	if len(eng.Loaded()) == 0 {
		b.WriteString("No skill body is loaded now.")
		return CommandResult{Text: b.String(), Level: "info"}, nil
	}
	// What this prompt would do to the live bodies now, judged exactly as
	// a real prompt would be (nothing changes).
	ex := eng.Preview(prompt)
	if ex.Skipped != nil {
		fmt.Fprintf(&b, "The prompt would not be judged: %s\n", ex.Skipped.Text)
	}
	b.WriteString("Loaded bodies:\n")
	for _, v := range ex.Decisions {
		verdict := "archive"
		if v.Keep {
			verdict = "keep"
		}
		fmt.Fprintf(&b, "  - %s: %s (%s)\n", skills.TerminalText(v.Skill), verdict, skills.TerminalText(v.Reason.Text))
	}
	if def := eng.Deferred(); len(def) > 0 {
		skillOf := map[string]string{}
		for _, body := range eng.Bodies() {
			skillOf[body.ID] = body.Skill
		}
		b.WriteString("Due for archive, kept for now:\n")
		for _, d := range def {
			fmt.Fprintf(&b, "  - %s (%s): %s\n", skills.TerminalText(skillOf[d.ID]), skills.TerminalText(d.ID), skills.TerminalText(d.Text))
		}
	}
	return CommandResult{Text: strings.TrimRight(b.String(), "\n"), Level: "info"}, nil
}

// skillArg checks a skill name argument.
func (s *Session) skillArg(name, usage string) error {
	if name == "" {
		return &ParamError{"args", "missing (usage: " + usage + ")"}
	}
	if !s.world.Skills.Has(name) {
		return &ParamError{"args", fmt.Sprintf("unknown skill %q", name)}
	}
	return nil
}

func (s *Session) cmdPin(name string) (CommandResult, error) {
	if err := s.skillArg(name, "/skills-pin <name>"); err != nil {
		return CommandResult{}, err
	}
	ds := s.apply(lifecycle.Event{Type: lifecycle.EvPin, Skill: name})
	text := fmt.Sprintf("%s is pinned: its body will not be archived.", skills.TerminalText(name))
	for _, d := range ds {
		if d.Action == lifecycle.ActUnarchive {
			text += " Its latest copy is restored from the next request."
		}
	}
	return CommandResult{Text: text, Level: "info"}, nil
}

func (s *Session) cmdUnpin(name string) (CommandResult, error) {
	if err := s.skillArg(name, "/skills-unpin <name>"); err != nil {
		return CommandResult{}, err
	}
	s.apply(lifecycle.Event{Type: lifecycle.EvUnpin, Skill: name})
	return CommandResult{Text: fmt.Sprintf("%s is no longer pinned: its body may be archived when it stops being relevant.", skills.TerminalText(name)), Level: "info"}, nil
}

func (s *Session) cmdSwitch(on bool) (CommandResult, error) {
	s.apply(lifecycle.Event{Type: lifecycle.EvEnable, On: on})
	if on {
		return CommandResult{Text: "Skill lifecycle is on: bodies that are no longer relevant are archived.", Level: "info"}, nil
	}
	return CommandResult{Text: "Skill lifecycle is off for this session: nothing more is archived.", Level: "info"}, nil
}

// cmdReload re-reads the skills and the configuration files: a new
// world.
func (s *Session) cmdReload(string) (CommandResult, error) {
	s.startLoad(loadCommand, skills.FileChanges{})
	if _, ok := s.takeLoad(updateWait); !ok {
		return CommandResult{Text: fmt.Sprintf("Reading %d skills and the configuration again; the next prompt takes them up.", len(s.src.Skills)), Level: "info"}, nil
	}
	w := s.world
	text := reloaded(w)
	level := "info"
	if len(w.Diagnostics) > 0 {
		text += "\n" + strings.Join(terminalLines(w.Diagnostics), "\n")
		level = "warning"
	}
	return CommandResult{Text: text, Level: level}, nil
}

// reloaded says what a reload read.
func reloaded(w *World) string {
	return fmt.Sprintf("Reloaded %d skills and the configuration.", len(w.Parsed))
}

// cmdModel answers /skills-model: the current model and, for each skill,
// the model it would run on if loaded now; "/skills-model reset" puts back
// the model from before the first switch of the session.
func (s *Session) cmdModel(args string) (CommandResult, error) {
	switch args {
	case "":
	case "reset":
		ds := s.apply(lifecycle.Event{Type: lifecycle.EvModelReset})
		for _, d := range ds {
			if d.Action == lifecycle.ActModelRestore && d.Model != nil {
				return CommandResult{Text: skills.TerminalText(d.Model.Message), Level: "info"}, nil
			}
		}
		return CommandResult{Text: "No model switch to undo.", Level: "info"}, nil
	default:
		return CommandResult{}, &ParamError{"args", fmt.Sprintf("%q is not understood (usage: /skills-model [reset])", args)}
	}
	cur := "unknown"
	if st := s.eng.ModelState(); st.Current != nil {
		cur = st.Current.String()
	} else if m := s.current; m != nil {
		cur = m.Provider + "/" + m.ID
	}
	mc := s.eng.ModelConfig()
	if !mc.Enabled || len(mc.Tiers) == 0 {
		return CommandResult{Text: fmt.Sprintf("Current model: %s. No model tiers are configured (skill-lifecycle.json, key models), so no skill switches the model.", cur), Level: "info"}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Current model: %s.\nIf loaded now:\n", cur)
	for _, sk := range s.world.Skills.visible() {
		ex := s.eng.ExplainModel(sk.Name)
		verb := "stays on"
		if ex.Switch {
			verb = "switches to"
		}
		fmt.Fprintf(&b, "- %s: %s %s (%s)\n", skills.TerminalText(sk.Name), verb, skills.TerminalText(ex.Model.String()), skills.TerminalText(ex.Cause.Reason))
		for _, r := range ex.Reports {
			fmt.Fprintf(&b, "  ! %s\n", skills.TerminalText(r))
		}
	}
	return CommandResult{Text: strings.TrimRight(b.String(), "\n"), Level: "info"}, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
