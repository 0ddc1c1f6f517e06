package replay

import (
	"encoding/json"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

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

// resultID names a tool result as the sidecar does (host/context.go,
// nameOf): by the id the bridge gave it (details.loadId) when it has
// one; else a skill load or a read of a skill's file by its tool call id,
// or, when an earlier result on the branch already has that name (a
// provider that reuses tool call ids), by "<id>#<n>" with the smallest n
// from 2 not yet taken; any other result by its tool call id. taken holds
// the names of the results before it on the branch.
func resultID(m *session.Message, counted bool, taken map[string]bool) string {
	if m.LoadID != "" {
		return m.LoadID
	}
	id := m.ToolCallID
	if !counted || !taken[id] {
		return id
	}
	for n := 2; ; n++ {
		if c := id + "#" + strconv.Itoa(n); !taken[c] {
			return c
		}
	}
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
// session's) resolves the relative paths of reads of skills' files. A
// file is a skill's when it lies in a folder the branch loads the skill
// from, anywhere on the branch: the host knows every skill's folder from
// the start, so a file read before its skill is loaded is one too.
func detect(p *Pack, br []*session.Entry, cwd string) *pathInfo {
	return detectWith(p, br, cwd, detectWith(p, br, cwd, nil).folders)
}

// detectWith is detect with the skills' folders known from the start
// (folders; nil: as they are met).
func detectWith(p *Pack, br []*session.Entry, cwd string, folders map[string][]string) *pathInfo {
	info := &pathInfo{loads: map[*session.Entry][]load{}, resources: map[*session.Entry][]resource{},
		calls: map[*session.Entry][]*call{}, folders: map[string][]string{}, ids: map[*session.Entry]string{}, unknown: map[string][]string{}}
	for skill, dirs := range folders {
		info.folders[skill] = append([]string(nil), dirs...)
	}
	// The calls awaiting their results, by tool call id, in call order: a
	// provider may reuse ids, and results come in the order of the calls.
	type awaiting struct {
		c    *call
		load *load  // the load the result brings, if any
		res  string // the path of another file read ("" if none)
	}
	pending := map[string][]awaiting{}
	taken := map[string]bool{} // the load ids of the results so far
	addFolder := func(skill, folder string) {
		if folder == "" {
			return
		}
		for _, f := range info.folders[skill] {
			if f == folder {
				return
			}
		}
		info.folders[skill] = append(info.folders[skill], folder)
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
				c := &call{ID: b.ID, Name: b.Name, Args: b.Arguments}
				w := awaiting{c: c}
				switch b.Name {
				case "skill":
					var a struct {
						Name  string `json:"name"`
						Skill string `json:"skill"`
					}
					_ = json.Unmarshal([]byte(b.Arguments), &a)
					name := a.Name
					if name == "" {
						name = a.Skill
					}
					if p.known(name) {
						c.LoadOf = name
						w.load = &load{Skill: name, Kind: lifecycle.ByTool}
					} else if name != "" {
						info.unknown[name] = append(info.unknown[name], "")
					}
				case "read":
					var a struct {
						Path     string `json:"path"`
						FilePath string `json:"file_path"`
						Offset   any    `json:"offset"`
						Limit    any    `json:"limit"`
					}
					_ = json.Unmarshal([]byte(b.Arguments), &a)
					fp := a.Path
					if fp == "" {
						fp = a.FilePath
					}
					// Only a full read loads the body (as the bridge counts it).
					if path.Base(fp) == "SKILL.md" && a.Offset == nil && a.Limit == nil {
						dir := path.Dir(fp)
						if name := path.Base(dir); p.known(name) {
							c.LoadOf = name
							w.load = &load{Skill: name, Kind: lifecycle.ByRead, Folder: dir, Path: fp}
						} else if name != "." && name != "/" {
							info.unknown[name] = append(info.unknown[name], dir)
						}
					}
					if w.load == nil && fp != "" {
						w.res = fp
					}
				}
				pending[b.ID] = append(pending[b.ID], w)
				info.calls[e] = append(info.calls[e], c)
			}
		case session.RoleToolResult:
			var w awaiting
			if q := pending[m.ToolCallID]; len(q) > 0 {
				w = q[0]
				pending[m.ToolCallID] = q[1:]
			}
			var res *resource
			if w.res != "" {
				abs := w.res
				if !path.IsAbs(abs) && cwd != "" {
					abs = path.Join(cwd, abs)
				}
				if skill := info.owner(p, abs); skill != "" && !m.IsError {
					res = &resource{Skill: skill, Path: w.res, Size: utf8.RuneCountInString(toolResultText(m))}
				}
			}
			isLoad := w.load != nil && !m.IsError
			if !isLoad && res == nil && !m.IsError && m.SkillBody != "" && w.c != nil && w.c.Name != "skill" && p.known(m.SkillBody) {
				// A body the bridge found in a tool's output (tool_result).
				w.load, isLoad = &load{Skill: m.SkillBody, Kind: lifecycle.ByRead}, true
			}
			id := resultID(m, isLoad || res != nil, taken)
			taken[id] = true
			info.ids[e] = id
			if w.c != nil {
				w.c.Result = id
			}
			switch {
			case res != nil:
				res.ID = id
				info.resources[e] = append(info.resources[e], *res)
			case isLoad:
				l := *w.load
				l.ID = id
				l.Body = toolResultText(m)
				l.Size = utf8.RuneCountInString(l.Body)
				info.loads[e] = append(info.loads[e], l)
				addFolder(l.Skill, l.Folder)
			}
		case session.RoleUser:
			if len(m.Blocks) == 0 || m.Blocks[0].Type != "text" {
				continue
			}
			t := m.Blocks[0].Text
			sm := skillBlock.FindStringSubmatch(t)
			if sm != nil && !p.known(sm[1]) && sm[1] != "" {
				info.unknown[sm[1]] = append(info.unknown[sm[1]], path.Dir(sm[2]))
			}
			if sm == nil || !p.known(sm[1]) {
				continue
			}
			body := t
			if end := strings.Index(t, "</skill>"); end >= 0 {
				body = t[:end+len("</skill>")]
			}
			dir := path.Dir(sm[2])
			info.loads[e] = append(info.loads[e], load{ID: CommandLoadID(m, e, sm[1]), Skill: sm[1], Kind: lifecycle.ByCommand,
				Size: utf8.RuneCountInString(body), Folder: dir, Path: sm[2], Body: body})
			addFolder(sm[1], dir)
		}
	}
	return info
}

// owner is the skill whose folder holds the file at fp: a folder its
// loads named so far, or <dir>/<name> of a pack folder; the deepest wins
// ("" for none).
func (info *pathInfo) owner(p *Pack, fp string) string {
	fp = path.Clean(fp)
	best, depth := "", 0
	try := func(skill, dir string) {
		if dir != "" && strings.HasPrefix(fp, strings.TrimSuffix(dir, "/")+"/") && len(dir) > depth {
			best, depth = skill, len(dir)
		}
	}
	for skill, dirs := range info.folders {
		for _, d := range dirs {
			try(skill, d)
		}
	}
	if p != nil {
		for _, d := range p.Dirs {
			if rest, ok := strings.CutPrefix(fp, strings.TrimSuffix(d, "/")+"/"); ok {
				if name, _, ok := strings.Cut(rest, "/"); ok && p.known(name) {
					try(name, path.Join(d, name))
				}
			}
		}
	}
	return best
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
