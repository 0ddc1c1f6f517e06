package host

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// What a host tool's result brings that the guard did not stop (issue
// 31): a skill's body whole in the output (bash base64 -d, a copy read
// back), which the host then lists as a load like any other; and the
// use of the files of a skill whose body is archived (an orphan use),
// which gets one line in the result saying how to load the instructions
// again.

// minFoundBody is the shortest trimmed body looked for in a tool's
// output: a shorter one may be there by chance.
const minFoundBody = 64

// ToolResult looks at a host tool's result before the model sees it.
func (s *Session) ToolResult(p ToolResultParams) (ToolResultResult, error) {
	if p.ToolName == "" {
		return ToolResultResult{}, missing("toolName")
	}
	if p.ToolName == ToolName {
		return ToolResultResult{}, nil
	}
	var res ToolResultResult
	if !p.IsError {
		res.Body = s.bodyIn(p.Text)
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = s.src.Cwd
	}
	res.Note = s.orphanNote(p.Input, cwd, res.Body)
	res.Quiet = s.Quiet() && res.Body == nil && (p.ToolName != "read" || !s.readsSkillFile(p.Input, cwd))
	return res, nil
}

// bodyIn is the model-visible skill whose trimmed body text holds whole
// (the longest, when several do), or nil (bodyFinder).
func (s *Session) bodyIn(text string) *ResultBody {
	if len(text) < minFoundBody {
		return nil
	}
	return s.world.bodies().find(text)
}

// orphanNote is the line for a call whose arguments name a file in the
// folder of a skill whose latest copy is archived (not its SKILL.md: a
// read of that is a load), once per archived copy; it records an orphan
// decision. found is the body the result itself brings, if any.
func (s *Session) orphanNote(input json.RawMessage, cwd string, found *ResultBody) string {
	if len(input) == 0 {
		return ""
	}
	var strs []string
	var args any
	if json.Unmarshal(input, &args) != nil {
		return ""
	}
	collectStrings(args, &strs)
	if m, ok := args.(map[string]any); ok {
		if p, ok := m["path"].(string); ok && p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, strings.TrimPrefix(p, "@"))
			}
			strs = append(strs, filepath.Clean(p))
		}
	}
	// The skills whose latest copy is archived, in the host's order (not
	// every skill: at 100,000 that pass cost 4 ms a result).
	latest := map[string]lifecycle.Body{}
	for _, b := range s.eng.Bodies() {
		latest[b.Skill] = b
	}
	var archived []int
	for name, b := range latest {
		if i, ok := s.world.Skills.byName[name]; ok && b.Archived && !s.orphaned[b.ID] && !s.world.Skills.list[i].DisableModelInvocation {
			archived = append(archived, i)
		}
	}
	slices.Sort(archived)
	var notes []string
	for _, i := range archived {
		hs := s.world.Skills.list[i]
		b := latest[hs.Name]
		if found != nil && found.Skill == hs.Name || !usesFolder(strs, hs.Path) {
			continue
		}
		if s.orphaned == nil {
			s.orphaned = map[string]bool{}
		}
		s.orphaned[b.ID] = true
		s.emit([]lifecycle.Decision{{V: lifecycle.RecordVersion, Action: lifecycle.ActOrphan, ID: b.ID, Skill: hs.Name}})
		notes = append(notes, fmt.Sprintf("[skill-lifecycle] The instructions of the skill %s were archived to save context; to use its files as it says, load them again first: call skill with name %s.", quoted(hs.Name), quoted(hs.Name)))
	}
	return strings.Join(notes, " ")
}

// usesFolder reports whether one of strs names something inside the
// folder of the skill whose SKILL.md is skillMD (as given or with links
// resolved), other than the SKILL.md itself: replay's orphan uses
// (replay/detect.go, touches) by the same rule.
func usesFolder(strs []string, skillMD string) bool {
	dirs := []string{filepath.Dir(skillMD)}
	if real, err := filepath.EvalSymlinks(skillMD); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, s := range strs {
		for _, d := range dirs {
			prefix := strings.TrimSuffix(d, "/") + "/"
			for rest := s; ; {
				i := strings.Index(rest, prefix)
				if i < 0 {
					break
				}
				rest = rest[i+len(prefix):]
				if rest == "" || rest[0] == ' ' || strings.HasPrefix(rest, "SKILL.md") && (len(rest) == 8 || strings.ContainsAny(rest[8:9], " \t\n'\";|&)")) {
					continue
				}
				return true
			}
		}
	}
	return false
}

// collectStrings appends every string in a decoded JSON value.
func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, y := range x {
			collectStrings(y, out)
		}
	case map[string]any:
		for _, y := range x {
			collectStrings(y, out)
		}
	}
}

// orphansOf is the archived copies the records say the agent was told
// of (orphan decisions).
func orphansOf(recs []lifecycle.Record) map[string]bool {
	var m map[string]bool
	for _, r := range recs {
		if r.Action == lifecycle.ActOrphan && r.ID != "" {
			if m == nil {
				m = map[string]bool{}
			}
			m[r.ID] = true
		}
	}
	return m
}
