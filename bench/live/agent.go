//go:build e2e

package live

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/tests/e2e"
)

// Event is something the scripted agent did or saw.
type Event struct {
	Turn    int    `json:"turn"`    // 1-based
	Request int    `json:"request"` // provider request index
	Kind    string `json:"kind"`    // load, reload, comeback-kept, comeback-reload, stranded, orphan-noted, orphan-stranded, problem
	Skill   string `json:"skill,omitempty"`
	Via     string `json:"via,omitempty"` // read or skill (loads)
	Detail  string `json:"detail,omitempty"`
}

// agent is the scripted model: it answers each request with the next step
// of the current turn. It behaves the same with and without the bridge,
// except that it loads skills with the `skill` tool when Pi offers one and
// that a NeedSkill step costs a request only when the body is not in the
// context any more.
type agent struct {
	mu      sync.Mutex
	markers map[string]string // skill -> a line of its body that proves it is in the context
	turns   []Turn

	turn    int // 0-based index of the current turn, -1 before the first
	cursor  int
	offset  time.Duration // virtual clock offset of the current Pi run
	loaded  map[string]int
	pending *Step // the load made by the previous request, checked at the next one
	// orphan is the skill whose file the previous request read while its
	// body was not in the context (an orphan use): at the next request
	// the agent loads it when the result says how (the bridge's note),
	// else it works on without the instructions (a stranded use).
	orphan string

	reqTurn   map[int]int
	reqOffset map[int]time.Duration
	events    []Event
}

var placeholderRE = regexp.MustCompile(`\[skill-lifecycle: the instructions of skill "([^"]+)" were archived`)

func newAgent(packDir string, turns []Turn) (*agent, error) {
	a := &agent{markers: map[string]string{}, turns: turns, turn: -1, loaded: map[string]int{},
		reqTurn: map[int]int{}, reqOffset: map[int]time.Duration{}}
	ents, err := os.ReadDir(packDir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(packDir, e.Name(), "SKILL.md"))
		if err != nil {
			continue
		}
		m := bodyMarker(string(b))
		if m == "" {
			return nil, fmt.Errorf("%s/SKILL.md: no body line of 30 characters or more to recognise it by", e.Name())
		}
		a.markers[e.Name()] = m
	}
	return a, nil
}

// bodyMarker returns the last line of at least 30 characters of the body
// (after the frontmatter).
func bodyMarker(text string) string {
	body := text
	if strings.HasPrefix(text, "---") {
		if i := strings.Index(text[3:], "\n---"); i >= 0 {
			body = text[3+i+4:]
		}
	}
	lines := strings.Split(body, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); len(l) >= 30 {
			return l
		}
	}
	return ""
}

// visible says whether the skill's body is in a tool result of the request.
func (a *agent) visible(r *e2e.Request, skill string) bool {
	m := a.markers[skill]
	for _, msg := range r.Messages {
		if msg.Role == "tool" && strings.Contains(msg.Text(), m) {
			return true
		}
	}
	return false
}

// wayBack says how the agent can load an archived skill again, or "".
func (a *agent) wayBack(r *e2e.Request, skill string) string {
	if hasTool(r, "skill") {
		for _, msg := range r.Messages {
			for _, m := range placeholderRE.FindAllStringSubmatch(msg.Text(), -1) {
				if m[1] == skill {
					return "skill tool, named by the placeholder"
				}
			}
		}
		if strings.Contains(r.SystemPrompt(), skill) {
			return "skill tool, listed in the system prompt"
		}
		return ""
	}
	if location(r, skill) != "" {
		return "read, location in the system prompt"
	}
	return ""
}

func hasTool(r *e2e.Request, name string) bool {
	for _, n := range r.ToolNames() {
		if n == name {
			return true
		}
	}
	return false
}

// location returns the SKILL.md path Pi's system prompt lists for skill.
func location(r *e2e.Request, skill string) string {
	re := regexp.MustCompile(`<name>` + regexp.QuoteMeta(skill) + `</name>\s*<description>[\s\S]*?</description>\s*<location>([^<]+)</location>`)
	if m := re.FindStringSubmatch(r.SystemPrompt()); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// startTurn makes turn i (0-based) current for the next Pi run.
func (a *agent) startTurn(i int, offset time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turn, a.cursor, a.offset = i, 0, offset
}

// currentOffset is the virtual clock offset of the current Pi run.
func (a *agent) currentOffset() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.offset
}

// endTurn reports steps the run left undone.
func (a *agent) endTurn() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cursor < len(a.turns[a.turn].Steps) {
		return fmt.Errorf("turn %d: Pi stopped after step %d of %d", a.turn+1, a.cursor, len(a.turns[a.turn].Steps))
	}
	return nil
}

func (a *agent) event(e Event) { a.events = append(a.events, e) }

// script answers one request.
func (a *agent) script(r *e2e.Request) e2e.Reply {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqTurn[r.Index] = a.turn
	a.reqOffset[r.Index] = a.offset
	turn := a.turn + 1
	if p := a.pending; p != nil {
		a.pending = nil
		if !a.visible(r, p.Skill) {
			kind := "problem"
			if p.Kind == NeedSkill {
				kind = "stranded"
			}
			a.event(Event{Turn: turn, Request: r.Index, Kind: kind, Skill: p.Skill,
				Detail: "the load did not bring the body into the context; last tool result: " + clip(lastToolText(r), 300)})
		}
	}
	if sk := a.orphan; sk != "" {
		a.orphan = ""
		if note := lastToolText(r); strings.Contains(note, orphanNote(sk)) && hasTool(r, "skill") {
			// The note is the last block of the result: its length.
			n := len(note) - strings.LastIndex(note, orphanNote(sk))
			a.event(Event{Turn: turn, Request: r.Index, Kind: "orphan-noted", Skill: sk, Detail: fmt.Sprint(n)})
			a.event(Event{Turn: turn, Request: r.Index, Kind: "reload", Skill: sk, Via: "skill"})
			a.loaded[sk]++
			a.pending = &Step{Kind: NeedSkill, Skill: sk}
			return e2e.Do(e2e.Call{Name: "skill", Args: map[string]any{"name": sk}})
		}
		a.event(Event{Turn: turn, Request: r.Index, Kind: "orphan-stranded", Skill: sk, Detail: "read a file of the skill with its body archived, and was not told"})
	}
	if a.turn < 0 || a.turn >= len(a.turns) {
		a.event(Event{Turn: turn, Request: r.Index, Kind: "problem", Detail: "request outside a turn"})
		return e2e.Say("Done.")
	}
	steps := a.turns[a.turn].Steps
	for a.cursor < len(steps) && steps[a.cursor].Kind == NeedSkill && a.visible(r, steps[a.cursor].Skill) {
		a.event(Event{Turn: turn, Request: r.Index, Kind: "comeback-kept", Skill: steps[a.cursor].Skill})
		a.cursor++
	}
	if a.cursor >= len(steps) {
		a.event(Event{Turn: turn, Request: r.Index, Kind: "problem", Detail: "more requests than steps"})
		return e2e.Say("Done.")
	}
	st := steps[a.cursor]
	a.cursor++
	call := func(name string, args map[string]any) e2e.Reply {
		return e2e.Do(e2e.Call{Name: name, Args: args})
	}
	switch st.Kind {
	case LoadSkill, NeedSkill:
		if st.Kind == NeedSkill {
			way := a.wayBack(r, st.Skill)
			if way == "" {
				a.event(Event{Turn: turn, Request: r.Index, Kind: "stranded", Skill: st.Skill, Detail: "body not in the context and no way to load it again"})
				return e2e.Say("I no longer have the instructions of " + st.Skill + ".")
			}
			a.event(Event{Turn: turn, Request: r.Index, Kind: "comeback-reload", Skill: st.Skill, Detail: way})
		}
		kind := "load"
		if a.loaded[st.Skill] > 0 {
			kind = "reload"
		}
		a.loaded[st.Skill]++
		a.pending = &st
		if hasTool(r, "skill") {
			a.event(Event{Turn: turn, Request: r.Index, Kind: kind, Skill: st.Skill, Via: "skill"})
			return call("skill", map[string]any{"name": st.Skill})
		}
		loc := location(r, st.Skill)
		if loc == "" {
			a.event(Event{Turn: turn, Request: r.Index, Kind: "problem", Skill: st.Skill, Detail: "no skill tool and no location in the system prompt"})
			a.pending = nil
			return e2e.Say("I cannot find the skill " + st.Skill + ".")
		}
		a.event(Event{Turn: turn, Request: r.Index, Kind: kind, Skill: st.Skill, Via: "read"})
		return call("read", map[string]any{"path": loc})
	case ReadFile:
		return call("read", map[string]any{"path": st.Path})
	case ReadRef:
		if a.loaded[st.Skill] > 0 && !a.visible(r, st.Skill) {
			a.orphan = st.Skill
		}
		return call("read", map[string]any{"path": filepath.ToSlash(filepath.Join(e2e.SkillDir, st.Skill, st.Path))})
	case RunBash:
		return call("bash", map[string]any{"command": st.Command})
	case WriteFile:
		return call("write", map[string]any{"path": st.Path, "content": st.Content})
	}
	return e2e.Say(st.Text)
}

// orphanNote is how the bridge's note on an orphan use starts
// (host/toolresult.go).
func orphanNote(skill string) string {
	return `[skill-lifecycle] The instructions of the skill "` + skill + `" were archived`
}

func lastToolText(r *e2e.Request) string {
	res := r.LastToolResults()
	if len(res) == 0 {
		return ""
	}
	return res[len(res)-1].Text()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
