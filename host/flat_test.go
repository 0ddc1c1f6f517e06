package host

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// logSink keeps everything a session sends the host, in order.
type logSink struct{ log []string }

func (l *logSink) Record(d lifecycle.Decision) {
	b, _ := json.Marshal(d)
	l.log = append(l.log, "record "+string(b))
}
func (l *logSink) Notify(level, msg string)  { l.log = append(l.log, "notify "+level+" "+msg) }
func (l *logSink) SetModel(p SetModelParams) { l.log = append(l.log, fmt.Sprintf("model %+v", p)) }
func (l *logSink) Line(p LineParams)         { l.log = append(l.log, fmt.Sprintf("line %+v", p)) }
func (l *logSink) take() (out []string)      { out, l.log = l.log, nil; return out }
func flatSkillNames() []string               { return []string{"eda", "deploy", "plot", "sql", "tests", "docs"} }
func flatDesc(name string) string {
	return "Work on " + name + ": the " + name + " steps, checks and notes."
}
func flatPath(name string) string        { return "/x/" + name + "/SKILL.md" }
func flatFile(name string, n int) string { return fmt.Sprintf("/x/%s/references/f%d.md", name, n) }
func flatText(role, s string) Message    { return textMsg(role, s) }
func flatCall(id, name, args string) Message {
	return callMsg(Block{Type: "toolCall", ID: id, Name: name, Arguments: json.RawMessage(args)})
}
func flatResult(id, tool, text string) Message {
	m := textMsg("toolResult", text)
	m.ToolCallID, m.ToolName = id, tool
	return m
}

// flatWorld is the skills of the differential test under a random
// configuration.
func flatWorld(r *rand.Rand) *World {
	cfg := rules.Default()
	cfg.MinKeep = r.Intn(2)
	cfg.MaxKeep = []int{0, 2, 3}[r.Intn(3)]
	cfg.CacheAware.Enabled = r.Intn(3) != 0
	cfg.ArchiveResources = r.Intn(4) != 0
	cfg.EvictOnSkillLoad = r.Intn(2) == 0
	cfg.Verbose = true
	var ss []skills.Skill
	var list []HostSkill
	for _, n := range flatSkillNames() {
		ss = append(ss, skills.Skill{Name: n, Description: flatDesc(n)})
		list = append(list, HostSkill{Name: n, Path: flatPath(n)})
	}
	return NewWorld(list, ss, cfg, nil)
}

// TestKeptLoadsDecideAsTheFullWalk drives two sessions with the same
// random host events, one of them always taking the full walk of the
// loads (noFlat), and checks that they answer, record, notify and show
// the same, request by request: the loads kept between requests
// (flat.go) change the work, never the outcome. It also holds the kept
// session to its quiet answers as the bridge reads them: after an answer
// that says quiet (and no other call since), a request that appends only
// plain messages, with the same system prompt, changes nothing but the
// status and sends the host nothing else.
func TestKeptLoadsDecideAsTheFullWalk(t *testing.T) {
	fast, leased := 0, 0
	for seed := int64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		w := flatWorld(r)
		var sinks [2]logSink
		var ss [2]*Session
		for i := range ss {
			ss[i] = New(w, InitializeParams{Cwd: "/x"}, &sinks[i], Options{})
			ss[i].src.Cwd = "/x"
		}
		ss[0].noFlat = true
		places := r.Intn(2) == 0
		msgs := []Message{flatText("user", "start the work")}
		sent := 0 // messages the host has sent
		base := int64(8000)
		names := flatSkillNames()
		// The bridge's lease: the kept session's last quiet answer, the
		// messages it had sent then and the system prompt's size.
		lease, leaseBase, last := false, int64(0), 0
		void := func(s *Session) {
			if s == ss[1] {
				lease = false
			}
		}
		grant := func(s *Session, quiet bool) {
			if s == ss[1] {
				lease, leaseBase = quiet, base
			}
		}
		toolResult := func(id, tool, path, text string) func(s *Session) any {
			return func(s *Session) any {
				res, err := s.ToolResult(ToolResultParams{ToolName: tool, CallID: id, Input: json.RawMessage(`{"path":"` + path + `","command":"go test"}`), Cwd: "/x", Text: text})
				grant(s, res.Quiet)
				res.Quiet = false // the full walk keeps no loads: never quiet
				return fmt.Sprintf("%+v %v", res, err)
			}
		}
		for step := range 150 + r.Intn(150) {
			var calls []func(s *Session) any
			id := fmt.Sprintf("c%d", step)
			skill := names[r.Intn(len(names))]
			switch k := r.Intn(20); {
			case k < 6: // the skill tool
				body := `<skill_content name="` + skill + `">` + strings.Repeat(skill+" step. ", 20+r.Intn(200)) + `</skill_content>`
				res := flatResult(id, ToolName, body)
				res.Details = &MessageDetails{LoadID: id, Skill: skill, Hash: fmt.Sprint("h", r.Intn(3))}
				msgs = append(msgs, flatCall(id, ToolName, `{"name":"`+skill+`"}`))
				lost := r.Intn(12) == 0 // the result never reaches the context
				if !lost {
					msgs = append(msgs, res)
				}
				calls = append(calls, func(s *Session) any {
					void(s)
					note, ok := s.ToolLoad(id, skill, res.Details.Hash, utf16Len(body))
					return fmt.Sprint(note, ok)
				})
			case k < 9: // a file of a skill's folder
				path := flatFile(skill, r.Intn(3))
				if r.Intn(2) == 0 {
					path = "/x/src/f" + fmt.Sprint(r.Intn(3)) + ".go" // a file of the project
				}
				out := strings.Repeat("notes ", 10+r.Intn(100))
				msgs = append(msgs, flatCall(id, "read", `{"path":"`+path+`"}`), flatResult(id, "read", out))
				calls = append(calls, toolResult(id, "read", path, out))
			case k < 11:
				msgs = append(msgs, flatCall(id, "bash", `{"command":"go test"}`), flatResult(id, "bash", strings.Repeat("ok ", 30)))
				calls = append(calls, toolResult(id, "bash", "", strings.Repeat("ok ", 30)))
			case k < 12: // /skill:name
				m := flatText("user", `<skill name="`+skill+`" location="`+flatPath(skill)+`">`+"\n"+strings.Repeat("do it ", 30)+"\n</skill>\n\nplease")
				m.Timestamp = json.RawMessage(fmt.Sprint(1733100000000 + step))
				msgs = append(msgs, m)
			case k < 14: // a prompt on a topic
				text := []string{"now " + flatDesc(skill), "something else entirely: the weather", "review the " + skill + " notes"}[r.Intn(3)]
				msgs = append(msgs, flatText("user", text))
				calls = append(calls, func(s *Session) any {
					void(s)
					res, err := s.UserPrompt(UserPromptParams{Text: text})
					return fmt.Sprint(res, err)
				})
			case k < 15:
				calls = append(calls, func(s *Session) any { void(s); s.RunStart(); return nil })
			case k < 16:
				calls = append(calls, func(s *Session) any { void(s); s.RunEnd(); return nil })
			case k < 17:
				cmd := []string{"skills-pin", "skills-unpin", "skills-off", "skills-on"}[r.Intn(4)]
				calls = append(calls, func(s *Session) any {
					void(s)
					res, err := s.Command(CommandParams{Name: cmd, Args: skill})
					return fmt.Sprint(res, err)
				})
			case k < 18:
				base += int64(r.Intn(3) * 100) // the system prompt changed
			}
			if r.Intn(25) == 0 {
				sent = max(sent-1-r.Intn(4), 0) // a rewind: the host sends again from there
			}
			if r.Intn(60) == 0 {
				sent = 0
			}
			plain := sent == last && base == leaseBase // the bridge proves an append
			for _, m := range msgs[sent:] {
				plain = plain && (m.Role == "assistant" || m.Role == "toolResult" && m.ToolName != ToolName && m.Details == nil)
			}
			calls = append(calls, func(s *Session) any {
				p := BeforeRequestParams{From: sent, Messages: msgs[sent:], SystemPromptSize: base, SincePreviousMs: int64(r.Intn(3)) * 200_000, Places: places}
				held := lease && plain && s == ss[1]
				logged := len(sinks[1].log)
				res, err := s.BeforeRequest(p)
				if held {
					leased++
					if news := sinks[1].log[logged:]; err != nil || res.Reset || len(res.Set)+len(res.Clear)+len(res.Places)+len(res.PlacesClear) > 0 || res.PlacesReset || len(news) > 0 {
						t.Fatalf("seed %d step %d: a plain request after a quiet answer changed %+v (err %v) and sent the host %q", seed, step, res, err, news)
					}
				}
				grant(s, res.Quiet)
				res.Quiet = false
				return fmt.Sprintf("%+v %v", res, err)
			})
			for _, c := range calls {
				// The same random draws for both sessions.
				state := r.Int63()
				var got [2]any
				for i, s := range ss {
					r.Seed(state)
					fastBefore := s.flat != nil
					got[i] = c(s)
					if i == 1 && fastBefore && s.flat != nil {
						fast++
					}
				}
				r.Seed(state)
				if diff := cmp.Diff(got[0], got[1]); diff != "" {
					t.Fatalf("seed %d step %d: answers differ (-full +kept):\n%s", seed, step, diff)
				}
				if diff := cmp.Diff(sinks[0].take(), sinks[1].take()); diff != "" {
					t.Fatalf("seed %d step %d: what the host was sent differs (-full +kept):\n%s", seed, step, diff)
				}
				a, b := ss[0], ss[1]
				if step%8 != 0 {
					continue // every few steps: the maps are the session's size
				}
				if diff := cmp.Diff([]any{a.carried, a.view.archived, a.view.previous, a.view.saved, a.view.known},
					[]any{b.carried, b.view.archived, b.view.previous, b.view.saved, b.view.known}); diff != "" {
					t.Fatalf("seed %d step %d: what the session holds differs (-full +kept):\n%s", seed, step, diff)
				}
			}
			sent, last = len(msgs), len(msgs)
		}
		if diff := cmp.Diff(ss[0].Engine().State(), ss[1].Engine().State()); diff != "" {
			t.Fatalf("seed %d: engine states differ:\n%s", seed, diff)
		}
	}
	t.Logf("%d requests took the kept loads, %d under a quiet answer", fast, leased)
	if leased < 300 {
		t.Errorf("only %d plain requests came after a quiet answer: the test checks too little", leased)
	}
	if fast < 1000 {
		t.Errorf("only %d requests took the kept loads: the test checks too little", fast)
	}
}

// flatSession is a session of n model requests as the bridge sends them
// (gen.SessionJSON): every third request loads one of 28 skills in turn,
// which supersedes the skill's copy before it.
func flatSession(n int) (*World, []Message) {
	var ss []skills.Skill
	var list []HostSkill
	var names []string
	for i := range 28 {
		name := fmt.Sprintf("skill-%02d", i)
		names = append(names, name)
		ss = append(ss, skills.Skill{Name: name, Description: flatDesc(name)})
		list = append(list, HostSkill{Name: name, Path: flatPath(name)})
	}
	var msgs []Message
	if err := json.Unmarshal(gen.SessionJSON(n, names, true), &msgs); err != nil {
		panic(err)
	}
	return NewWorld(list, ss, rules.Default(), nil), msgs
}

// bytesPerRequest is what m requests of a session of n requests
// allocate, each: the session first takes the n requests' messages at
// once, then one request more at a time; the first m requests are not
// counted (the slices of the messages held grow once in them, in one
// copy of all, which later requests pay off).
func bytesPerRequest(t *testing.T, n, m int) float64 {
	w, msgs := flatSession(n + 2*m)
	s := New(w, InitializeParams{Cwd: "/x"}, &recorder{}, Options{})
	s.RunStart()
	base := 1 + 2*n
	if _, err := s.BeforeRequest(BeforeRequestParams{Messages: msgs[:base], SystemPromptSize: 8000, Places: true}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	for i := range 2 * m {
		if i == m {
			runtime.ReadMemStats(&before)
		}
		from := base + 2*i
		if _, err := s.BeforeRequest(BeforeRequestParams{From: from, Messages: msgs[from : from+2], SystemPromptSize: 8000, SincePreviousMs: 1200, Places: true}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(m)
}

// TestRequestWorkIsFlat: what one more request allocates stays about the
// same from 100 to 10,000 requests held (3,334 bodies, most of them
// archived): a request costs what it changes, not what the session
// holds (issue 30). The full walk of every load (noFlat) allocates 8
// times as much at 10,000 as at 100.
func TestRequestWorkIsFlat(t *testing.T) {
	small := bytesPerRequest(t, 100, 300)
	large := bytesPerRequest(t, 10_000, 300)
	t.Logf("bytes a request: %.0f at 100 requests, %.0f at 10,000", small, large)
	if large > 2*small {
		t.Errorf("a request allocates %.0f bytes at 10,000 requests held, %.1f times the %.0f at 100: the work grows with the session", large, large/small, small)
	}
}
