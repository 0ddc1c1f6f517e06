package replay

import (
	"cmp"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/session"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Pack is what replay knows of the installed skills: their names (nil
// accepts any folder holding a SKILL.md) and folders where a skill named
// <name> lives as <dir>/<name>/ (the --skills pack and --orphan-dir
// folders). Listing (the model-visible skills, in Pi's order), Files (each
// skill's top-level files) and Locations (each SKILL.md) let replay render
// what the bridge would have shown (bridge.go); without them the bridge's
// listing and tool answers are not modelled.
type Pack struct {
	Names     map[string]bool
	Dirs      []string
	Listing   []skills.ListedSkill
	Files     map[string][]string
	Locations map[string]string
	// Section is the bridge's skills section for Listing, within its
	// listing budget (host.World.Section); "" renders Listing whole.
	Section string
}

func (p *Pack) known(name string) bool {
	return name != "" && (p == nil || p.Names == nil || p.Names[name])
}

// load is one skill body arriving in the context.
type load struct {
	ID     string // tool call id, or the user entry id for /skill:name
	Skill  string
	Kind   lifecycle.LoadKind
	Size   int    // characters
	Folder string // the skill's folder as the session names it ("" if unknown)
	Path   string // SKILL.md path as read ("" if unknown)
	Body   string // text that entered the context
}

// resource is a file of a skill's folder other than its SKILL.md that a
// read brought into the context (lifecycle.Resource).
type resource struct {
	ID, Skill, Path string
	Size            int
}

// pathInfo is what detection found on one branch.
type pathInfo struct {
	loads     map[*session.Entry][]load     // at the tool result or user entry that carries the body
	resources map[*session.Entry][]resource // at the tool result that carries the file
	calls     map[*session.Entry][]*call    // tool calls of each assistant entry
	folders   map[string][]string           // skill -> folders seen in loads
	ids       map[*session.Entry]string     // the load id of each tool result entry (resultID)
	// unknown holds the loads of skills the pack does not name (a read
	// of <folder>/<name>/SKILL.md, a skill tool call, a /skill: block):
	// skill -> folders seen ("" when the load names none). They are not
	// loads to the engine; Report.SkillsLoaded lists them.
	unknown map[string][]string
}

// idOf is the load id of tool result m, of entry e on the branch (nil for
// a message replay adds, known by its tool call id).
func (info *pathInfo) idOf(e *session.Entry, m *session.Message) string {
	if id, ok := info.ids[e]; ok && e != nil {
		return id
	}
	return m.ToolCallID
}

// call is one tool call; the strings of its arguments are read when
// first needed.
type call struct {
	ID, Name string
	Args     string
	strs     []string
	parsed   bool
	LoadOf   string // skill whose SKILL.md this call loads ("" if none)
	Result   string // the load id of its result (idOf), once seen
}

func (c *call) strings() []string {
	if !c.parsed {
		c.parsed = true
		c.strs = argStrings(c.Args)
	}
	return c.strs
}

var skillBlock = regexp.MustCompile(`^<skill name="([^"]*)" location="([^"]*)">`)

// detect finds the skill loads and tool calls on a branch; cwd (the
// session's) resolves the relative paths of reads. The loads are the
// host's (host.LoadFinder, as the sidecar finds them in the messages the
// bridge forwards): before each request the context Pi sends is handed
// to the finder, and each load is placed at the entry that carries it.
// What is replay's own: which skills the host lists, and where (the
// pack's skills at the folders the session reads them from, hostSkills),
// the tool calls (for comebacks and orphan uses), and the files of the
// pack's and orphan folders (Pack.Dirs), which the host does not list.
func detect(p *Pack, br []*session.Entry, cwd string) *pathInfo {
	info := &pathInfo{loads: map[*session.Entry][]load{}, resources: map[*session.Entry][]resource{},
		calls: map[*session.Entry][]*call{}, folders: map[string][]string{}, ids: map[*session.Entry]string{}, unknown: map[string][]string{}}
	idx := host.NewIndex(hostSkills(p, br, cwd, info.unknown))
	found := findLoads(p, idx, br, cwd, info.unknown)
	// The calls awaiting their results, by tool call id, in call order: a
	// provider may reuse ids, and results come in the order of the calls.
	pending := map[string][]*call{}
	addFolder := func(skill, folder string) {
		if folder != "" && !slices.Contains(info.folders[skill], folder) {
			info.folders[skill] = append(info.folders[skill], folder)
		}
	}
	for _, e := range br {
		m := e.Message
		if m == nil {
			continue
		}
		switch m.Role {
		case session.RoleAssistant:
			for _, b := range m.Blocks {
				if b.Type != "toolCall" {
					continue
				}
				c := &call{ID: b.ID, Name: b.Name, Args: b.Arguments, LoadOf: asksFor(p, idx, b, cwd)}
				if name := skillArg(b); b.Name == "skill" && name != "" && !p.known(name) {
					info.unknown[name] = append(info.unknown[name], "")
				}
				pending[b.ID] = append(pending[b.ID], c)
				info.calls[e] = append(info.calls[e], c)
			}
		case session.RoleToolResult:
			var c *call
			if q := pending[m.ToolCallID]; len(q) > 0 {
				c, pending[m.ToolCallID] = q[0], q[1:]
			}
			id := m.LoadID
			if id == "" {
				id = m.ToolCallID
			}
			f, ok := found[e]
			if ok {
				id = f.ID
			}
			info.ids[e] = id
			if c != nil {
				c.Result = id
			}
			fp := ""
			if c != nil && c.Name == "read" {
				fp = readPath(c.Args)
			}
			switch {
			case ok && f.Kind == host.KindResource:
				info.resources[e] = append(info.resources[e], resource{ID: id, Skill: f.Skill, Path: f.Path, Size: int(f.Size)})
			case ok:
				l := load{ID: id, Skill: f.Skill, Kind: f.Kind, Size: int(f.Size), Body: toolResultText(m)}
				if f.Kind == lifecycle.ByRead && path.Base(fp) == "SKILL.md" {
					l.Path, l.Folder = fp, path.Dir(fp)
				}
				info.loads[e] = append(info.loads[e], l)
				addFolder(l.Skill, l.Folder)
			case fp != "" && !m.IsError:
				// A file of a pack or orphan folder the host does not list.
				abs := fp
				if !path.IsAbs(abs) && cwd != "" {
					abs = path.Join(cwd, abs)
				}
				if skill := packOwner(p, abs); skill != "" {
					info.resources[e] = append(info.resources[e], resource{ID: id, Skill: skill, Path: fp, Size: skills.UTF16Len(toolResultText(m))})
				}
			}
		case session.RoleUser:
			f, ok := found[e]
			if !ok {
				continue
			}
			t := m.Blocks[0].Text
			sm := skillBlock.FindStringSubmatch(t)
			if sm == nil {
				continue
			}
			body := t
			if end := strings.Index(t, "</skill>"); end >= 0 {
				body = t[:end+len("</skill>")]
			}
			dir := path.Dir(sm[2])
			info.loads[e] = append(info.loads[e], load{ID: f.ID, Skill: f.Skill, Kind: lifecycle.ByCommand,
				Size: int(f.Size), Folder: dir, Path: sm[2], Body: body})
			addFolder(f.Skill, dir)
		}
	}
	return info
}

// findLoads runs the host's load finder over the context of each request
// of the branch, and of the branch's end: the first load found in each
// entry's message, by entry. Loads of skills the pack does not name go to
// unknown.
func findLoads(p *Pack, idx *host.Index, br []*session.Entry, cwd string, unknown map[string][]string) map[*session.Entry]host.LoadRef {
	f := host.NewLoadFinder(idx, cwd)
	out := map[*session.Entry]host.LoadRef{}
	seen := map[*session.Entry]bool{}
	var prev []session.ContextMessage // the messages last handed over
	var sent []host.Message
	find := func(cms []session.ContextMessage) {
		from := 0
		for from < len(prev) && from < len(cms) && prev[from] == cms[from] {
			from++
		}
		sent = sent[:from]
		for _, cm := range cms[from:] {
			sent = append(sent, hostMessage(cm))
		}
		prev = append(prev[:0], cms...)
		loads, err := f.Find(from, sent[from:])
		if err != nil {
			return // replay builds every message; none is malformed
		}
		for _, l := range loads {
			e := cms[l.Msg].Entry
			if cms[l.Msg].Kind != session.FromMessage || l.Kind == lifecycle.ByReattach || seen[e] {
				continue
			}
			seen[e] = true
			if l.Kind != host.KindResource && !p.known(l.Skill) {
				if l.Kind == lifecycle.ByTool {
					continue // noted at the call (detect)
				}
				dir := ""
				if l.Kind == lifecycle.ByCommand {
					if sm := skillBlock.FindStringSubmatch(e.Message.Blocks[0].Text); sm != nil {
						dir = path.Dir(sm[2])
					}
				}
				unknown[l.Skill] = append(unknown[l.Skill], dir)
				continue
			}
			out[e] = l.LoadRef
		}
	}
	cb := session.NewContextBuilder(br)
	for !cb.Done() {
		if e := cb.Peek(); e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == session.RoleAssistant {
			find(cb.Messages())
		}
		cb.Step()
	}
	find(cb.Messages())
	return out
}

// hostSkills is the skill list the host gives the bridge, as far as the
// branch shows it: each skill of the pack at the SKILL.md path the
// branch first loads it from (a full read of <dir>/<name>/SKILL.md, or a
// /skill:name block's location). Without a pack, every such read names a
// skill.
func hostSkills(p *Pack, br []*session.Entry, cwd string, unknown map[string][]string) []host.HostSkill {
	var list []host.HostSkill
	seen := map[string]bool{}
	add := func(name, loc string) {
		if name == "" || seen[name] || !p.known(name) {
			return
		}
		seen[name] = true
		if !path.IsAbs(loc) {
			loc = host.ResolvePath(loc, cwd)
		}
		list = append(list, host.HostSkill{Name: name, Path: loc})
	}
	for _, e := range br {
		m := e.Message
		if m == nil {
			continue
		}
		switch m.Role {
		case session.RoleAssistant:
			for _, b := range m.Blocks {
				if b.Type != "toolCall" || b.Name != "read" {
					continue
				}
				var a struct {
					Offset any `json:"offset"`
					Limit  any `json:"limit"`
				}
				_ = json.Unmarshal([]byte(b.Arguments), &a)
				if fp := readPath(b.Arguments); path.Base(fp) == "SKILL.md" && a.Offset == nil && a.Limit == nil {
					dir := path.Dir(fp)
					if name := path.Base(dir); !p.known(name) && name != "." && name != "/" {
						unknown[name] = append(unknown[name], dir)
					}
					add(path.Base(dir), fp)
				}
			}
		case session.RoleUser:
			if len(m.Blocks) > 0 && m.Blocks[0].Type == "text" {
				if sm := skillBlock.FindStringSubmatch(m.Blocks[0].Text); sm != nil {
					add(sm[1], sm[2])
				}
			}
		}
	}
	return list
}

// asksFor is the skill a tool call asks to load ("" for none): a skill
// tool call naming a skill of the pack, or a full read of a SKILL.md the
// host lists. The comeback model reads it as the agent choosing its skill,
// whether or not the call succeeds.
func asksFor(p *Pack, idx *host.Index, b session.Block, cwd string) string {
	var a struct {
		Path   string `json:"path"`
		Offset any    `json:"offset"`
		Limit  any    `json:"limit"`
	}
	_ = json.Unmarshal([]byte(b.Arguments), &a)
	switch b.Name {
	case "skill":
		if name := skillArg(b); p.known(name) {
			return name
		}
	case "read":
		if a.Path != "" && a.Offset == nil && a.Limit == nil {
			if s, ok := idx.SkillFile(host.ResolvePath(a.Path, cwd)); ok {
				return s.Name
			}
		}
	}
	return ""
}

// skillArg is the skill a skill tool call names ("" for none).
func skillArg(b session.Block) string {
	var a struct {
		Name  string `json:"name"`
		Skill string `json:"skill"`
	}
	_ = json.Unmarshal([]byte(b.Arguments), &a)
	return cmp.Or(a.Name, a.Skill)
}

// readPath is the path a read call names ("" for none).
func readPath(args string) string {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal([]byte(args), &a)
	return a.Path
}

// hostMessage is a context message as the bridge forwards it to the
// sidecar (host.Message).
func hostMessage(cm session.ContextMessage) host.Message {
	m := cm.Message
	hm := host.Message{Role: m.Role, ToolCallID: m.ToolCallID, ToolName: m.ToolName, IsError: m.IsError}
	if e := cm.Entry; cm.Kind == session.FromMessage && e.Message != nil && e.Message.Role == session.RoleCustom {
		hm.Role, hm.CustomType = "custom", e.Message.CustomType
	} else if cm.Kind == session.FromCustomMessage {
		hm.Role, hm.CustomType = "custom", e.CustomType
	}
	switch {
	case m.Timestamp > 0:
		hm.Timestamp = json.RawMessage(strconv.FormatInt(m.Timestamp, 10))
	case cm.Entry != nil:
		hm.Timestamp, _ = json.Marshal(cm.Entry.ID)
	}
	if m.LoadID != "" || m.SkillBody != "" {
		hm.Details = &host.MessageDetails{LoadID: m.LoadID}
		if m.SkillBody != "" {
			hm.Details.SkillBody = &host.SkillBody{Skill: m.SkillBody}
		}
	}
	blocks := make([]host.Block, 0, len(m.Blocks))
	for _, b := range m.Blocks {
		hb := host.Block{Type: b.Type, Name: b.Name, ID: b.ID}
		switch b.Type {
		case "text":
			hb.Text = &b.Text
		case "thinking":
			hb.Thinking = &b.Thinking
		case "toolCall":
			if json.Valid([]byte(b.Arguments)) {
				hb.Arguments = json.RawMessage(b.Arguments)
			}
		default:
			continue
		}
		blocks = append(blocks, hb)
	}
	hm.Content, _ = json.Marshal(blocks)
	return hm
}

// packOwner is the skill whose folder <dir>/<name> of a pack or orphan
// folder (Pack.Dirs) holds the file at fp ("" for none).
func packOwner(p *Pack, fp string) string {
	if p == nil {
		return ""
	}
	fp = path.Clean(fp)
	for _, d := range p.Dirs {
		if rest, ok := strings.CutPrefix(fp, strings.TrimSuffix(d, "/")+"/"); ok {
			if name, _, ok := strings.Cut(rest, "/"); ok && p.known(name) {
				return name
			}
		}
	}
	return ""
}

// CommandLoadID is the load id of a /skill:name block, as the bridge
// names it: "user:<message timestamp>:<skill>" (the entry id stands in for
// a missing timestamp).
func CommandLoadID(m *session.Message, e *session.Entry, skill string) string {
	if m.Timestamp > 0 {
		return "user:" + strconv.FormatInt(m.Timestamp, 10) + ":" + skill
	}
	return "user:" + e.ID + ":" + skill
}

// promptText is a user message's text as the engine judges it: a
// /skill:name block is left out (its arguments stay).
func promptText(m *session.Message) string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	t := strings.Join(parts, "\n")
	if skillBlock.MatchString(t) {
		if end := strings.Index(t, "</skill>"); end >= 0 {
			t = strings.TrimSpace(t[end+len("</skill>"):])
		}
	}
	return t
}

// argStrings returns every string value in a tool call's arguments.
func argStrings(raw string) []string {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return out
}

// touches reports whether a tool call's arguments name something inside
// one of folders (a path under it).
func touches(c *call, folders []string) bool {
	for _, s := range c.strings() {
		for _, f := range folders {
			if f != "" && strings.Contains(s, strings.TrimSuffix(f, "/")+"/") {
				return true
			}
		}
	}
	return false
}
