package protocol

import (
	"fmt"

	"sort"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"

	"github.com/sourcegraph/jsonrpc2"
)

// CommandParams is one /skills-* command as the user typed it: Name
// without the slash, Args the rest of the line.
type CommandParams struct {
	Name string `json:"name"`
	Args string `json:"args"`
}

// CommandResult is the text to show the user.
type CommandResult struct {
	Text string `json:"text"`
	// Level is "info", "warning" or "error".
	Level string `json:"level"`
}

// commandFuncs maps command names to their implementation.
var commandFuncs map[string]func(*call, string) (CommandResult, *jsonrpc2.Error)

func init() {
	commandFuncs = map[string]func(*call, string) (CommandResult, *jsonrpc2.Error){
		"skills-list":    (*call).cmdList,
		"skills-explain": (*call).cmdExplain,
		"skills-pin":     (*call).cmdPin,
		"skills-unpin":   (*call).cmdUnpin,
		"skills-reload":  (*call).cmdReload,
		"skills-model":   (*call).cmdModel,
		"skills-on":      func(c *call, _ string) (CommandResult, *jsonrpc2.Error) { return c.cmdSwitch(true) },
		"skills-off":     func(c *call, _ string) (CommandResult, *jsonrpc2.Error) { return c.cmdSwitch(false) },
	}
}

func (c *call) command() (any, *jsonrpc2.Error) {
	var p CommandParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(strings.TrimSpace(p.Name), "/")
	if name == "" {
		return nil, required(c.method, "name")
	}
	f, ok := commandFuncs[name]
	if !ok {
		names := make([]string, 0, len(commandFuncs))
		for n := range commandFuncs {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, rpcError(CodeInvalidParams, "%s: name: unknown command %q (known: %s)", c.method, name, strings.Join(names, ", "))
	}
	res, rerr := f(c, strings.TrimSpace(p.Args))
	// The answer is shown on the user's terminal: the skill text in it was
	// made visible piece by piece (skills.TerminalText); this catches any
	// control character left, keeping the answer's own lines.
	res.Text = skills.TerminalLines(res.Text)
	return res, rerr
}

// cmdList answers /skills-list: every skill with its role, whether a body
// of it is loaded, archived or pinned, and the entry skill.
func (c *call) cmdList(string) (CommandResult, *jsonrpc2.Error) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	cat, eng := c.s.cat, c.s.eng
	onOff := "on"
	if !eng.Enabled() {
		onOff = "off"
	}
	if len(cat.skills) == 0 {
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
	var b strings.Builder
	fmt.Fprintf(&b, "%d skills (archiving %s):\n", len(cat.skills), onOff)
	for _, s := range cat.skills {
		var tags []string
		if s.Name == entry {
			tags = append(tags, "entry ("+entrySrc+")")
		}
		if h := eng.HelperOf(s.Name); h != "" {
			tags = append(tags, "helper")
		}
		if p := eng.PinOf(s.Name); p != "" {
			tags = append(tags, "pinned ("+string(p)+")")
		}
		if st := state[s.Name]; st != "" {
			tags = append(tags, st)
		}
		if s.DisableModelInvocation {
			tags = append(tags, "only through /skill:"+skills.TerminalText(s.Name))
		}
		note := ""
		if len(tags) > 0 {
			note = " [" + strings.Join(tags, ", ") + "]"
		}
		fmt.Fprintf(&b, "- %s%s: %s\n", skills.TerminalText(s.Name), note, skills.TerminalText(truncate(oneLine(s.Description), 100)))
	}
	return CommandResult{Text: strings.TrimRight(b.String(), "\n"), Level: "info"}, nil
}

// cmdExplain answers /skills-explain <prompt>: the skills ranked for the
// prompt and what it would do to each live body.
func (c *call) cmdExplain(prompt string) (CommandResult, *jsonrpc2.Error) {
	if prompt == "" {
		return CommandResult{}, rpcError(CodeInvalidParams, "%s: args: missing (usage: /skills-explain <prompt>)", c.method)
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	w, eng := c.s.world, c.s.eng
	cfg := eng.Config()
	var b strings.Builder
	rk := w.cat.Ranker.Rank(prompt, cfg.MinSignal)
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
func (c *call) skillArg(name, usage string) *jsonrpc2.Error {
	if name == "" {
		return rpcError(CodeInvalidParams, "%s: args: missing (usage: %s)", c.method, usage)
	}
	if _, ok := c.s.cat.byName[name]; !ok {
		return rpcError(CodeInvalidParams, "%s: args: unknown skill %q", c.method, name)
	}
	return nil
}

func (c *call) cmdPin(name string) (CommandResult, *jsonrpc2.Error) {
	c.s.mu.Lock()
	if err := c.skillArg(name, "/skills-pin <name>"); err != nil {
		c.s.mu.Unlock()
		return CommandResult{}, err
	}
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvPin, Skill: name})
	c.s.mu.Unlock()
	c.emit(ds)
	text := fmt.Sprintf("%s is pinned: its body will not be archived.", skills.TerminalText(name))
	for _, d := range ds {
		if d.Action == lifecycle.ActUnarchive {
			text += " Its latest copy is restored from the next request."
		}
	}
	return CommandResult{Text: text, Level: "info"}, nil
}

func (c *call) cmdUnpin(name string) (CommandResult, *jsonrpc2.Error) {
	c.s.mu.Lock()
	if err := c.skillArg(name, "/skills-unpin <name>"); err != nil {
		c.s.mu.Unlock()
		return CommandResult{}, err
	}
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvUnpin, Skill: name})
	c.s.mu.Unlock()
	c.emit(ds)
	return CommandResult{Text: fmt.Sprintf("%s is no longer pinned: its body may be archived when it stops being relevant.", skills.TerminalText(name)), Level: "info"}, nil
}

func (c *call) cmdSwitch(on bool) (CommandResult, *jsonrpc2.Error) {
	c.s.mu.Lock()
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvEnable, On: on})
	c.s.mu.Unlock()
	c.emit(ds)
	if on {
		return CommandResult{Text: "Skill lifecycle is on: bodies that are no longer relevant are archived.", Level: "info"}, nil
	}
	return CommandResult{Text: "Skill lifecycle is off for this session: nothing more is archived.", Level: "info"}, nil
}

// cmdReload re-reads the skills and the configuration files.
func (c *call) cmdReload(string) (CommandResult, *jsonrpc2.Error) {
	c.s.mu.Lock()
	w := loadWorld(c.s.init, c.s.cat.skills)
	c.s.world = w
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvWorld, Catalog: &w.cat, Config: &w.cfg})
	if c.s.watch != nil {
		c.s.watch.rebase(c.s.cat.skills)
	}
	n := len(w.parsed)
	c.s.mu.Unlock()
	c.emit(ds)
	text := fmt.Sprintf("Reloaded %d skills and the configuration.", n)
	level := "info"
	if len(w.diags) > 0 {
		text += "\n" + strings.Join(terminalLines(w.diags), "\n")
		level = "warning"
	}
	return CommandResult{Text: text, Level: level}, nil
}

// cmdModel answers /skills-model: the current model and, for each skill,
// the model it would run on if loaded now; "/skills-model reset" puts back
// the model from before the first switch of the session.
func (c *call) cmdModel(args string) (CommandResult, *jsonrpc2.Error) {
	switch args {
	case "":
	case "reset":
		c.s.mu.Lock()
		ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvModelReset})
		c.s.mu.Unlock()
		c.emit(ds)
		for _, d := range ds {
			if d.Action == lifecycle.ActModelRestore && d.Model != nil {
				return CommandResult{Text: skills.TerminalText(d.Model.Message), Level: "info"}, nil
			}
		}
		return CommandResult{Text: "No model switch to undo.", Level: "info"}, nil
	default:
		return CommandResult{}, rpcError(CodeInvalidParams, "%s: args: %q is not understood (usage: /skills-model [reset])", c.method, args)
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	cur := "unknown"
	if st := c.s.eng.ModelState(); st.Current != nil {
		cur = st.Current.String()
	} else if m := c.s.init.CurrentModel; m != nil {
		cur = m.Provider + "/" + m.ID
	}
	mc := c.s.eng.ModelConfig()
	if !mc.Enabled || len(mc.Tiers) == 0 {
		return CommandResult{Text: fmt.Sprintf("Current model: %s. No model tiers are configured (skill-lifecycle.json, key models), so no skill switches the model.", cur), Level: "info"}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Current model: %s.\nIf loaded now:\n", cur)
	for _, s := range c.s.cat.visible() {
		ex := c.s.eng.ExplainModel(s.Name)
		verb := "stays on"
		if ex.Switch {
			verb = "switches to"
		}
		fmt.Fprintf(&b, "- %s: %s %s (%s)\n", skills.TerminalText(s.Name), verb, skills.TerminalText(ex.Model.String()), skills.TerminalText(ex.Cause.Reason))
		for _, r := range ex.Reports {
			fmt.Fprintf(&b, "  ! %s\n", skills.TerminalText(r))
		}
	}
	return CommandResult{Text: strings.TrimRight(b.String(), "\n"), Level: "info"}, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// terminalLines is each of lines (diagnostics, one a line) made visible
// for the terminal (skills.TerminalText).
func terminalLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = skills.TerminalText(l)
	}
	return out
}
