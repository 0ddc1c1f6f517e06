package host

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// What the user sees of the lifecycle in the session: one line per
// archive, restore, comeback and model change (host/line, when the
// configuration's verbose is on), and a footer status with each
// request's answer. Both are worked out from what each request carries,
// whichever event decided it, so a decision taken at a user prompt shows
// at the request it changes.

// defaultCharsPerToken converts characters to tokens until the host's
// usage says better (lineView.cpt).
const defaultCharsPerToken = 4.0

// lineView is what the lines have shown so far.
type lineView struct {
	known    bool              // archived holds the previous request's (false after a restore)
	archived map[string]string // id → skill, of the bodies the previous request carried archived
	previous map[string]bool   // the load ids the previous request carried
	// spare is the map archived was before, reused for the next request's.
	spare map[string]string
	saved int64   // characters the placeholders saved, summed over the requests
	cpt   float64 // characters per token, from the last usage (0: default)
}

// tokens converts n characters to tokens at the session's best estimate.
func (v *lineView) tokens(n int64) int64 {
	cpt := v.cpt
	if cpt <= 0 {
		cpt = defaultCharsPerToken
	}
	return int64(float64(n)/cpt + 0.5)
}

// learn takes the characters per token from the previous request's
// usage and size, when the host gave both.
func (v *lineView) learn(p BeforeRequestParams) {
	u := p.PreviousUsage
	if u == nil || p.PreviousSize <= 0 {
		return
	}
	if tok := u.Input + u.CacheRead + u.CacheWrite; tok > 0 {
		if cpt := float64(p.PreviousSize) / float64(tok); cpt >= 1 && cpt <= 16 {
			v.cpt = cpt
		}
	}
}

// show compares what request r carries (loads, with archived the
// placeholders in force) with the previous one, and sends a line for
// each change; it returns the footer status.
func (s *Session) show(p BeforeRequestParams, r lifecycle.Request, ph []int64, archived map[string]string) string {
	v := &s.view
	v.learn(p)
	var gone, back, again []LoadRef
	var wasArchived map[string]bool // skills with a body archived at the previous request, when needed
	now := v.spare
	if now == nil {
		now = make(map[string]string)
	}
	clear(now)
	loaded, saved := 0, int64(0)
	for k, l := range p.Loads {
		if l.Kind == KindResource {
			continue
		}
		isArch := ph[k] >= 0
		if isArch {
			now[l.ID] = l.Skill
			saved += max(l.Size-ph[k], 0)
		} else {
			loaded++
		}
		_, was := v.archived[l.ID]
		switch {
		case !v.known:
		case isArch && !was:
			gone = append(gone, l)
		case !isArch && was:
			back = append(back, l)
		case !v.previous[l.ID] && isLoadKind(l.Kind):
			if wasArchived == nil {
				wasArchived = make(map[string]bool, len(v.archived))
				for _, sk := range v.archived {
					wasArchived[sk] = true
				}
			}
			if wasArchived[l.Skill] {
				again = append(again, l)
			}
		}
	}
	if v.previous == nil {
		v.previous = make(map[string]bool, len(p.Loads))
	}
	clear(v.previous)
	for _, l := range p.Loads {
		v.previous[l.ID] = true
	}
	v.archived, v.spare, v.known = now, v.archived, true
	v.saved += saved
	if s.world.Config.Verbose && len(gone)+len(back)+len(again) > 0 {
		pos := make(map[string]lifecycle.BodyPosition, len(r.Bodies))
		for _, b := range r.Bodies {
			pos[b.ID] = b
		}
		s.changeLines(gone, back, again, archived, pos, r, p.CacheCold)
	}
	return statusLine(loaded, len(now), v)
}

// isLoadKind says whether a load of kind k brings a body (a comeback
// when its skill had one archived).
func isLoadKind(k lifecycle.LoadKind) bool {
	return k == lifecycle.ByTool || k == lifecycle.ByRead || k == lifecycle.ByCommand
}

// statusLine is the footer status.
func statusLine(loaded, archived int, v *lineView) string {
	return fmt.Sprintf("skills: %d loaded, %d archived, ~%s tokens saved", loaded, archived, kilo(v.tokens(v.saved)))
}

// changeLines sends a line for each kind of change the request made:
// the bodies archived (their placeholders in archived), restored, and
// loaded again.
func (s *Session) changeLines(gone, back, again []LoadRef, archived map[string]string, pos map[string]lifecycle.BodyPosition, r lifecycle.Request, cold bool) {
	if len(gone) > 0 {
		s.changeLine("archive", gone, archived, pos, r, cold)
	}
	if len(back) > 0 {
		s.changeLine("restore", back, nil, pos, r, cold)
	}
	if len(again) > 0 {
		s.changeLine("comeback", again, nil, pos, r, cold)
	}
}

// changeLine sends the line for bodies ls that were archived (with their
// placeholders ph), restored or loaded again at request r (pos: where
// r has each body, and at what size): the context each later request
// saves or carries again, and what the change writes again of the cached
// prefix: the previous request from the first changed body on, less the
// bodies themselves (an archived body is no longer sent, a restored one
// is new content, written anyway); nothing when the cache is cold.
func (s *Session) changeLine(kind string, ls []LoadRef, ph map[string]string, pos map[string]lifecycle.BodyPosition, r lifecycle.Request, cold bool) {
	var names []string
	var size int64
	from := int64(-1)
	for _, l := range ls {
		if !containsString(names, l.Skill) {
			names = append(names, l.Skill)
		}
		if ph != nil {
			size += max(l.Size-utf16Len(ph[l.ID]), 0)
		} else {
			size += l.Size
		}
		if b, ok := pos[l.ID]; ok && (from < 0 || b.Offset < from) {
			from = b.Offset
		}
	}
	// r counts the bodies archived before this request as their
	// placeholders, so is its end of the previous request (Previous).
	cachedEnd := r.Previous
	if cachedEnd <= 0 {
		cachedEnd = r.Total
	}
	var shrink int64 // of [from, cachedEnd), what is not rewritten
	for _, l := range ls {
		b, ok := pos[l.ID]
		if !ok || b.Offset >= cachedEnd {
			continue
		}
		switch {
		case ph != nil && b.Size == l.Size: // archived at this request: whole in r
			shrink += max(l.Size-utf16Len(ph[l.ID]), 0)
		case ph == nil:
			shrink += b.Size
		}
	}
	v := &s.view
	line := LineParams{Kind: kind, Skills: names, Tokens: v.tokens(size)}
	if !cold && from >= 0 && r.Total > 0 {
		if n := cachedEnd - from - shrink; n > 0 {
			line.RewriteTokens = v.tokens(n)
			line.RewriteUSD = s.rewriteUSD(line.RewriteTokens)
		}
	}
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = skills.TerminalText(n)
	}
	var b strings.Builder
	switch kind {
	case "archive":
		fmt.Fprintf(&b, "skill-lifecycle: archived %s: saves ~%s tokens a request", strings.Join(shown, ", "), kilo(line.Tokens))
	case "restore":
		fmt.Fprintf(&b, "skill-lifecycle: restored %s: adds ~%s tokens a request", strings.Join(shown, ", "), kilo(line.Tokens))
	default:
		fmt.Fprintf(&b, "skill-lifecycle: %s came back after its archive: adds ~%s tokens a request", strings.Join(shown, ", "), kilo(line.Tokens))
	}
	switch {
	case line.RewriteTokens > 0 && line.RewriteUSD > 0:
		fmt.Fprintf(&b, "; cache rewrite ~%s tokens ($%.4f)", kilo(line.RewriteTokens), line.RewriteUSD)
	case line.RewriteTokens > 0:
		fmt.Fprintf(&b, "; cache rewrite ~%s tokens", kilo(line.RewriteTokens))
	case cold:
		b.WriteString("; the cache was cold: no rewrite")
	}
	line.Text = b.String()
	s.sink.Line(line)
}

// modelLine sends a model change as a line, when verbose.
func (s *Session) modelLine(msg string) {
	if !s.world.Config.Verbose {
		return
	}
	s.sink.Line(LineParams{Kind: "model", Text: skills.TerminalText("skill-lifecycle: " + msg)})
}

// rewriteUSD is what writing n tokens of the cache costs over reading
// them, at the current model's prices (0 when unknown).
func (s *Session) rewriteUSD(n int64) float64 {
	if s.current == nil {
		return 0
	}
	for _, m := range s.models {
		if m.Provider != s.current.Provider || m.ID != s.current.ID || m.Input == nil || m.CacheRead == nil {
			continue
		}
		w := *m.Input
		if m.CacheWrite != nil && *m.CacheWrite > 0 {
			w = *m.CacheWrite
		}
		return max(w-*m.CacheRead, 0) * float64(n) / 1e6
	}
	return 0
}

// kilo writes n tokens short: 950, 3.1k, 12k.
func kilo(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.0fk", float64(n)/1000)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cmdStats answers /skills-stats: the session Pi recorded, replayed
// with and without the extension (Options.Stats), with the folders of
// the session's skills as the pack and the current model's cache
// lifetime.
func (s *Session) cmdStats(string) (CommandResult, error) {
	if s.stats == nil {
		return CommandResult{Text: "/skills-stats is not available here.", Level: "warning"}, nil
	}
	if s.sessionFile == "" {
		return CommandResult{Text: "/skills-stats: Pi keeps no session file for this session (--no-session?), so there is nothing to re-cost.", Level: "warning"}, nil
	}
	var folders []string
	for _, sk := range s.world.Skills.list {
		if d := filepath.Dir(filepath.Dir(sk.Path)); !containsString(folders, d) {
			folders = append(folders, d)
		}
	}
	var ttl time.Duration
	if mc := s.modelCache(); mc != nil && mc.TTLSeconds > 0 {
		ttl = time.Duration(mc.TTLSeconds * float64(time.Second))
	}
	text, err := s.stats(s.sessionFile, folders, ttl)
	if err != nil {
		return CommandResult{Text: "/skills-stats: " + err.Error(), Level: "warning"}, nil
	}
	return CommandResult{Text: text, Level: "info"}, nil
}
