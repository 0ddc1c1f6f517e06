package replay

import (
	"bytes"
	"encoding/json"
	"math"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/session"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// The bridge model. An engine strategy replayed on a session recorded
// without the extension predicts what the bridge would have sent, and the
// bridge's requests differ from Pi's in three fixed ways besides archiving:
//
//   - its skills section replaces Pi's: names and descriptions without
//     locations, under its own instruction (skills.BridgeListing);
//   - it adds the skill tool: a line in the system prompt's tool list and a
//     definition in the request's tools;
//   - skills are loaded with that tool: a `read` of a SKILL.md becomes a
//     call {"name": …} whose answer is the body without its frontmatter in
//     a <skill_content> block (skills.SkillContent), and the response that
//     makes the call is shorter.
//
// The first two change the header (what the session does not hold) by a
// fixed number of characters; the third rewrites the load's tool call and
// result. Sessions recorded with the bridge (skill tool loads or recorded
// decisions) already have all three and are replayed as they are.

// jsonLen is the length in code points of s written as a JSON string,
// without its quotes, as the request carries it.
func jsonLen(s string) int {
	return utf8.RuneCount(appendPyString(nil, s)) - 2
}

// skillToolJSON is the skill tool's entry in the request's tools, as Pi's
// openai-completions provider writes it (with the comma that joins it to
// the others).
func skillToolJSON() string {
	var buf []byte
	buf = append(buf, `,{"type":"function","function":{"name":`...)
	buf = appendPyString(buf, skills.SkillToolName)
	buf = append(buf, `,"description":`...)
	buf = appendPyString(buf, skills.SkillToolDescription)
	buf = append(buf, `,"parameters":`...)
	// As JSON.stringify writes it: "<" and ">" are not escaped.
	var params any
	_ = json.Unmarshal(skills.SkillToolParameters(), &params)
	var pb bytes.Buffer
	enc := json.NewEncoder(&pb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(params)
	buf = append(buf, bytes.TrimSpace(pb.Bytes())...)
	buf = append(buf, "}}"...)
	return string(buf)
}

// bridgeView is how one branch looks through the bridge.
type bridgeView struct {
	// HeaderDelta is added to the calibrated header: the bridge's listing
	// and tool against Pi's listing.
	HeaderDelta int
	calls       map[*session.Entry]*session.Message // assistant entries whose load calls are rewritten
	results     map[string]string                   // load id -> the skill tool's answer
	loads       map[*session.Entry][]load           // the loads as the bridge reports them
}

// newBridgeView prepares the bridge's view of a branch recorded without
// the extension; nil when the branch was recorded with it or when the pack
// does not say which skills Pi listed.
func newBridgeView(p *Pack, info *pathInfo, br []*session.Entry, hasRecords bool) *bridgeView {
	if p == nil || len(p.Listing) == 0 || hasRecords {
		return nil
	}
	for _, ls := range info.loads {
		for _, l := range ls {
			if l.Kind == lifecycle.ByTool {
				return nil // already the bridge's loads
			}
		}
	}
	v := &bridgeView{calls: map[*session.Entry]*session.Message{}, results: map[string]string{}, loads: map[*session.Entry][]load{}}
	// Pi listed each skill at the SKILL.md path it read it from; skills
	// not read sit beside those that were (else where the pack has them).
	root := ""
	for _, fs := range info.folders {
		if len(fs) > 0 {
			root = path.Dir(fs[0])
			break
		}
	}
	locs := make([]string, len(p.Listing))
	for i, s := range p.Listing {
		switch {
		case len(info.folders[s.Name]) > 0:
			locs[i] = info.folders[s.Name][0] + "/SKILL.md"
		case root != "":
			locs[i] = root + "/" + s.Name + "/SKILL.md"
		default:
			locs[i] = p.Locations[s.Name]
		}
	}
	section := p.Section
	if section == "" {
		section = skills.BridgeListing(p.Listing)
	}
	v.HeaderDelta = jsonLen(section) - jsonLen(skills.PiListing(p.Listing, locs)) +
		jsonLen("- "+skills.SkillToolName+": "+skills.SkillToolSnippet+"\n") + utf8.RuneCountInString(skillToolJSON())

	rewritten := map[string]string{} // load id (of the result) -> skill
	for e, ls := range info.loads {
		var out []load
		for _, l := range ls {
			if l.Kind == lifecycle.ByRead {
				body := l.Body
				if sk, _ := skills.Parse(l.Path, []byte(l.Body)); sk != nil {
					body = sk.Body
				}
				l.Body = skills.SkillContent(l.Skill, strings.TrimSpace(body), path.Dir(l.Path), p.Files[l.Skill])
				l.Size = utf8.RuneCountInString(l.Body)
				l.Kind = lifecycle.ByTool
				v.results[l.ID] = l.Body
				rewritten[l.ID] = l.Skill
			}
			out = append(out, l)
		}
		v.loads[e] = out
	}
	for _, e := range br {
		m := e.Message
		if m == nil || m.Role != session.RoleAssistant {
			continue
		}
		var nm *session.Message
		calls := info.calls[e] // the tool call blocks, in order
		k := 0
		for i, b := range m.Blocks {
			if b.Type != "toolCall" {
				continue
			}
			skill := ""
			if k < len(calls) {
				skill = rewritten[calls[k].Result]
			}
			k++
			if skill == "" {
				continue
			}
			if nm == nil {
				c := *m
				c.Blocks = append([]session.Block(nil), m.Blocks...)
				nm = &c
			}
			args, _ := json.Marshal(map[string]string{"name": skill})
			nm.Blocks[i].Name, nm.Blocks[i].Arguments = skills.SkillToolName, string(args)
		}
		if nm != nil {
			v.calls[e] = nm
		}
	}
	return v
}

// outputTokens is the response's output as the bridge would have it: the
// recorded output, with each rewritten load call counted at its new
// length (the scripted provider counts ceil(characters / 4); a real
// tokenizer is scaled by the same ratio).
func (v *bridgeView) outputTokens(e *session.Entry, cal Calibration) int {
	m := e.Message
	rec := outputTokens(m, cal)
	nm := v.calls[e]
	if nm == nil {
		return rec
	}
	oldC, newC := outputChars(m), outputChars(nm)
	est := func(c int) int { return int(math.Ceil(float64(c) / cal.CharsPerToken)) }
	if rec == est(oldC) || oldC == 0 {
		return est(newC)
	}
	return max(0, int(math.Round(float64(rec)*float64(newC)/float64(oldC))))
}

// What the bridge counts. Before each request the sidecar measures the
// context the bridge forwards (messageSize and scan in host/context.go): the
// system prompt's length, then for each of Pi's messages the characters of
// its text and thinking and of each tool call's name and JSON arguments,
// in UTF-16 code units as JavaScript counts them. That is neither the
// request's JSON (no tool definitions, no JSON syntax or escapes) nor its
// token count, and the engine weighs archiving in those units: a rewrite
// costs the characters after the body, the saving is the body's. Replay
// feeds the engine the same figures for strategies that stand for the
// bridge.

// piToolsChars is the length of the tool definitions Pi 1.6 sends for its
// four default tools (read, bash, edit, write) in the request's tools, as
// compact JSON (captured from Pi 1.6's requests to the scripted provider).
const piToolsChars = 2841

// systemFraming is the JSON around the system prompt in the request:
// the messages' "[" and `{"role":"system","content":"…"}` before the
// first message's separator.
const systemFraming = len(`[{"role":"system","content":""}`)

// bridgeBase estimates the system prompt's length, which the bridge adds
// before the first message, from the request header (tools and system
// message, as calibrated): the header less Pi 1.6's default tools, the
// skill tool when the requests carry it, and the JSON framing. Escapes in
// the prompt (a newline is written \n) are not known and stay counted: a
// few per cent of the prompt.
func bridgeBase(header int, skillTool bool) int {
	base := header - piToolsChars - systemFraming
	if skillTool {
		base -= utf8.RuneCountInString(skillToolJSON())
	}
	return max(base, 0)
}

// bridgeSize is a context message's length as the bridge counts it, and
// the length of the skill body it carries (the tool result's text, or a
// /skill: block; 0 without one), with replace (an archived body's
// placeholder, or the bridge's rewritten load) applied as the request
// sends it. Compaction and branch summaries and bash executions carry no
// content in Pi's message and count 0.
func bridgeSize(cm *session.ContextMessage, m *session.Message, replace func(string) string) (size, body int) {
	if cm != nil {
		switch cm.Kind {
		case session.FromCompaction, session.FromBranchSummary:
			return 0, 0
		}
		if em := cm.Entry.Message; em != nil && em.Role == session.RoleBashExecution {
			return 0, 0
		}
	}
	switch m.Role {
	case session.RoleToolResult:
		if replace != nil {
			size = skills.UTF16Len(replace(toolResultText(m)))
		} else {
			for _, b := range m.Blocks {
				if b.Type == "text" {
					size += skills.UTF16Len(b.Text)
				}
			}
		}
		return size, size
	case session.RoleAssistant:
		for _, b := range m.Blocks {
			switch b.Type {
			case "text":
				size += skills.UTF16Len(b.Text)
			case "thinking":
				size += skills.UTF16Len(b.Thinking)
			case "toolCall":
				size += skills.UTF16Len(b.Name) + skills.UTF16Len(compactJSON(b.Arguments))
			}
		}
		return size, 0
	}
	first := true
	for _, b := range m.Blocks {
		if b.Type != "text" {
			continue
		}
		t := b.Text
		if replace != nil {
			t = replace(t)
		}
		size += skills.UTF16Len(t)
		if first && skillBlock.MatchString(b.Text) {
			// The /skill: block, or the placeholder that replaced it.
			blk := b.Text
			if end := strings.Index(blk, "</skill>"); end >= 0 {
				blk = blk[:end+len("</skill>")]
			}
			body = skills.UTF16Len(blk) + skills.UTF16Len(t) - skills.UTF16Len(b.Text)
		}
		first = false
	}
	return size, body
}

// recordedWithBridge reports whether the branch was recorded with the
// bridge on: decisions recorded, or loads through the skill tool.
func (b *branch) recordedWithBridge() bool {
	if b.hasRecords {
		return true
	}
	for _, ls := range b.info.loads {
		for _, l := range ls {
			if l.Kind == lifecycle.ByTool {
				return true
			}
		}
	}
	return false
}
