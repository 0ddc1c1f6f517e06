package host

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func textMsg(role, text string) Message {
	c, _ := json.Marshal([]Block{{Type: "text", Text: &text}})
	return Message{Role: role, Content: c}
}

func callMsg(calls ...Block) Message {
	c, _ := json.Marshal(calls)
	return Message{Role: "assistant", Content: c, Usage: &UsageParams{Input: 10, CacheRead: 900, CacheWrite: 50}, StopReason: "toolUse"}
}

func readCall(id, path string) Block {
	args, _ := json.Marshal(map[string]string{"path": path})
	return Block{Type: "toolCall", ID: id, Name: "read", Arguments: args}
}

// contextMessages is a conversation with one load of each kind: a file of
// eda's folder read before eda is loaded, eda by the skill tool, deploy
// by /skill:deploy (with an emoji, two UTF-16 units), and a re-attach
// region.
func contextMessages() []Message {
	edaBody := `<skill_content name="eda">` + strings.Repeat("explore the data ", 20) + `</skill_content>`
	tool := textMsg("toolResult", edaBody)
	tool.ToolCallID, tool.ToolName, tool.Details = "call_0", ToolName, &MessageDetails{LoadID: "call_0", Skill: "eda", Hash: "h-eda"}
	guide := textMsg("toolResult", "# Guide\nhow to plot 📈")
	guide.ToolCallID, guide.ToolName = "call_1", "read"
	cmd := Message{Role: "user", Timestamp: json.RawMessage("1733100000000")}
	cmd.Content, _ = json.Marshal(`<skill name="deploy" location="/x/deploy/SKILL.md">` + "\nship it 🚀\n</skill>\n\nplease deploy")
	region := `[intro]` + "\n\n" + `<skill_content name="eda">again</skill_content>`
	reattach := textMsg("custom", region)
	reattach.CustomType, reattach.Details = ReattachType, &MessageDetails{CompactionID: "c9"}
	return []Message{
		textMsg("user", "look at the data"),
		callMsg(readCall("call_1", "references/guide.md")),
		guide,
		callMsg(Block{Type: "toolCall", ID: "call_0", Name: ToolName, Arguments: json.RawMessage(`{"name":"eda"}`)}),
		tool,
		cmd,
		reattach,
	}
}

// TestContextFindsLoads: the context model finds each kind of load, with
// the ids, sizes (UTF-16 units) and offsets the bridge gave them.
func TestContextFindsLoads(t *testing.T) {
	s := New(gateWorld(nil), InitializeParams{}, &recorder{}, Options{})
	s.src.Cwd = "/x/eda"
	c := &contextModel{}
	if err := c.update(0, contextMessages()); err != nil {
		t.Fatal(err)
	}
	c.scan(s.world.Skills, "/x/eda")
	loads, total, prev, usage := c.request(1000, 0)
	// The sizes as JavaScript counts them: UTF-16 units.
	js := func(s string) int64 { return int64(len(utf16.Encode([]rune(s)))) }
	m := contextMessages()
	edaBody := `<skill_content name="eda">` + strings.Repeat("explore the data ", 20) + `</skill_content>`
	var cmdText string
	_ = json.Unmarshal(m[5].Content, &cmdText)
	block := cmdText[:strings.Index(cmdText, "</skill>")+len("</skill>")]
	sizes := []int64{js("look at the data"), js("read") + js(`{"path":"references/guide.md"}`), js("# Guide\nhow to plot 📈"),
		js(ToolName) + js(`{"name":"eda"}`), js(edaBody), js(cmdText)}
	at := func(i int) int64 {
		n := int64(1000)
		for _, s := range sizes[:i] {
			n += s
		}
		return n
	}
	want := []LoadRef{
		{ID: "call_1", Skill: "eda", Kind: KindResource, Path: "references/guide.md", Size: sizes[2], Offset: at(2)},
		{ID: "call_0", Skill: "eda", Kind: "tool", Size: sizes[4], Hash: "h-eda", Offset: at(4)},
		{ID: "user:1733100000000:deploy", Skill: "deploy", Kind: "command", Size: js(block), Offset: at(5)},
		{ID: "reattach:c9:eda", Skill: "eda", Kind: "reattach", Size: js(`<skill_content name="eda">again</skill_content>`), Offset: at(6) + js("[intro]\n\n")},
	}
	if d := cmp.Diff(want, loads); d != "" {
		t.Errorf("loads (-want +got):\n%s", d)
	}
	if wantTotal := want[3].Offset + want[3].Size; total != wantTotal {
		t.Errorf("total %d, want %d", total, wantTotal)
	}
	if wantPrev := at(3); prev != wantPrev {
		t.Errorf("previous %d, want %d", prev, wantPrev)
	}
	if usage == nil || usage.CacheRead != 900 {
		t.Errorf("usage %+v", usage)
	}
}

// TestContextDeltas: a request sent in deltas finds what the same
// messages sent whole find, and the answer carries only what changed in
// the replacements: the archived body and its file once, nothing while
// nothing changes, everything again after a resync; a delta past what the
// sidecar holds is refused, naming the field.
func TestContextDeltas(t *testing.T) {
	mod := func(c *rules.Config) { c.CacheAware.Enabled = false }
	s := New(gateWorld(mod), InitializeParams{Cwd: "/x/eda"}, &recorder{}, Options{})
	s.src.Cwd = "/x/eda"
	msgs := contextMessages()[:5] // the file and eda's body
	s.RunStart()
	var res BeforeRequestResult
	var err error
	for i := 1; i <= len(msgs); i++ {
		from := max(i-2, 0)
		if i == 5 { // the skill tool ran
			s.ToolLoad("call_0", "eda", "h-eda", 100)
		}
		if res, err = s.BeforeRequest(BeforeRequestParams{From: from, Messages: msgs[from:i]}); err != nil {
			t.Fatal(err)
		}
		if len(res.Set)+len(res.Clear) != 0 {
			t.Fatalf("request %d: %+v, want no replacements", i, res)
		}
	}
	whole := New(gateWorld(mod), InitializeParams{}, &recorder{}, Options{})
	whole.src.Cwd = "/x/eda"
	whole.ctx = &contextModel{}
	_ = whole.ctx.update(0, msgs)
	whole.ctx.index = whole.world.Skills
	whole.ctx.cwd = "/x/eda"
	whole.ctx.scan(whole.world.Skills, "/x/eda")
	if d := cmp.Diff(whole.ctx.loads, s.ctx.loads, cmp.AllowUnexported(found{})); d != "" {
		t.Errorf("loads in deltas differ from whole (-whole +deltas):\n%s", d)
	}
	s.RunEnd()
	_, _ = s.UserPrompt(UserPromptParams{Text: "deploy the release to production now please"})
	msgs = append(msgs, textMsg("user", "deploy the release to production now please"))
	res, err = s.BeforeRequest(BeforeRequestParams{From: 5, Messages: msgs[5:]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Set) != 2 || res.Reset || len(res.Clear) != 0 || res.Set[0].Index != 2 || res.Set[1].Index != 4 || !res.Set[1].Whole {
		t.Fatalf("after the prompt: %+v, want the file and the body replaced", res)
	}
	res, _ = s.BeforeRequest(BeforeRequestParams{From: 6, Messages: []Message{}})
	if len(res.Set)+len(res.Clear) != 0 || res.Reset {
		t.Errorf("nothing changed: %+v", res)
	}
	res, _ = s.BeforeRequest(BeforeRequestParams{From: 0, Messages: msgs})
	if !res.Reset || len(res.Set) != 2 {
		t.Errorf("resync: %+v, want reset and both again", res)
	}
	_, err = s.BeforeRequest(BeforeRequestParams{From: 9, Messages: []Message{}})
	if pe, ok := err.(*ParamError); !ok || pe.Field != "from" {
		t.Errorf("a delta past the messages held: %v", err)
	}
}

// TestContextPatchesWithinText: a /skill: block and the bodies of a
// re-attach region are replaced within their message's text.
func TestContextPatchesWithinText(t *testing.T) {
	s := New(gateWorld(nil), InitializeParams{}, &recorder{}, Options{})
	c := &contextModel{}
	_ = c.update(0, contextMessages())
	c.scan(s.world.Skills, "/x/eda")
	got := c.patches([]Replacement{{ID: "user:1733100000000:deploy", Placeholder: "[P1]"}, {ID: "reattach:c9:eda", Placeholder: "[P2]"}})
	want := map[PatchKey]string{
		{Index: 5}:           "[P1]\n\nplease deploy",
		{Index: 6, Block: 0}: "[intro]\n\n[P2]",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("patches (-want +got):\n%s", d)
	}
}

// TestContextRewind: messages sent again from any index (the host could
// not prove an append past it) find the loads a whole scan finds, with
// the same unique names for results that share a tool call id.
func TestContextRewind(t *testing.T) {
	idx := gateWorld(nil).Skills
	msgs := contextMessages()
	// A second read of the guide under a reused tool call id: "call_1#2".
	again := msgs[2]
	msgs = append(msgs, callMsg(readCall("call_1", "/x/eda/references/guide.md")), again)
	whole := &contextModel{}
	_ = whole.update(0, msgs)
	whole.scan(idx, "/x/eda")
	if n := len(whole.loads); n != 5 || whole.loads[4].ref.ID != "call_1#2" {
		t.Fatalf("whole scan: %d loads, last %+v", n, whole.loads[n-1].ref)
	}
	for from := 0; from <= len(msgs); from++ {
		c := &contextModel{}
		_ = c.update(0, msgs)
		c.scan(idx, "/x/eda")
		if err := c.update(from, msgs[from:]); err != nil {
			t.Fatal(err)
		}
		c.scan(idx, "/x/eda")
		if d := cmp.Diff(whole.loads, c.loads, cmp.AllowUnexported(found{})); d != "" {
			t.Errorf("from %d (-whole +rewound):\n%s", from, d)
		}
		if d := cmp.Diff(whole.byID, c.byID); d != "" {
			t.Errorf("from %d byID (-whole +rewound):\n%s", from, d)
		}
		if d := cmp.Diff(whole.offsets, c.offsets); d != "" {
			t.Errorf("from %d offsets (-whole +rewound):\n%s", from, d)
		}
	}
}

// TestContextPlaces: asked for, the answer is a change set of the loads'
// places the host holds (the Pi 1.6 bridge plans its context edits from
// them): all of them first (placesReset), then only what changed — a new
// load, an archive, a load gone (placesClear) — and nothing when nothing
// did; not asked, none, and the next ask starts over, as does from 0.
func TestContextPlaces(t *testing.T) {
	mod := func(c *rules.Config) { c.CacheAware.Enabled = false }
	s := New(gateWorld(mod), InitializeParams{Cwd: "/x/eda"}, &recorder{}, Options{})
	s.src.Cwd = "/x/eda"
	msgs := contextMessages()[:5]
	s.RunStart()
	s.ToolLoad("call_0", "eda", "h-eda", 100)
	type got struct {
		Places []LoadPlace
		Reset  bool
		Clear  []string
	}
	ask := func(from int, ms []Message) got {
		t.Helper()
		res, err := s.BeforeRequest(BeforeRequestParams{From: from, Messages: ms, Places: true})
		if err != nil {
			t.Fatal(err)
		}
		return got{res.Places, res.PlacesReset, res.PlacesClear}
	}
	check := func(what string, want, g got) {
		t.Helper()
		if d := cmp.Diff(want, g, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s (-want +got):\n%s", what, d)
		}
	}
	all := []LoadPlace{{ID: "call_1", Index: 2, Kind: KindResource}, {ID: "call_0", Index: 4, Kind: "tool"}}
	check("the first answer", got{Places: all, Reset: true}, ask(0, msgs))
	s.RunEnd()
	_, _ = s.UserPrompt(UserPromptParams{Text: "deploy the release to production now please"})
	msgs = append(msgs, textMsg("user", "deploy the release to production now please"))
	archived := []LoadPlace{{ID: "call_1", Index: 2, Kind: KindResource, Archived: true}, {ID: "call_0", Index: 4, Kind: "tool", Archived: true}}
	check("after the archive", got{Places: archived}, ask(5, msgs[5:]))
	check("nothing changed", got{}, ask(6, []Message{}))
	cmd := contextMessages()[5]
	g := ask(6, []Message{cmd})
	if len(g.Places) != 1 || g.Places[0].ID != "user:1733100000000:deploy" || g.Places[0].Index != 6 || g.Reset || len(g.Clear) != 0 {
		t.Errorf("a /skill: block appended: %+v, want its place alone", g)
	}
	check("the tool result replaced", got{Clear: []string{"call_0", "user:1733100000000:deploy"}}, ask(4, []Message{textMsg("toolResult", "nothing here")}))
	if res, _ := s.BeforeRequest(BeforeRequestParams{From: 5, Messages: []Message{}}); res.Places != nil || res.PlacesReset {
		t.Errorf("not asked: places %+v", res.Places)
	}
	check("asked again", got{Places: archived[:1], Reset: true}, ask(5, []Message{}))
	check("from 0", got{Places: archived, Reset: true}, ask(0, msgs[:5]))
}

// TestContextBodyInToolOutput: a tool result the sidecar found a body in
// (details.skillBody, from tool_result) is a load of kind read with the
// skill tool's hash, as the bridge's own load finding made it.
func TestContextBodyInToolOutput(t *testing.T) {
	idx := gateWorld(nil).Skills
	out := textMsg("toolResult", "the decoded body")
	out.ToolCallID, out.ToolName = "call_7", "bash"
	out.Details = &MessageDetails{LoadID: "call_7", SkillBody: &SkillBody{Skill: "eda", Hash: "h-eda"}}
	plain := textMsg("toolResult", "no body")
	plain.ToolCallID, plain.ToolName = "call_8", "bash"
	c := &contextModel{}
	if err := c.update(0, []Message{callMsg(Block{Type: "toolCall", ID: "call_7", Name: "bash", Arguments: json.RawMessage(`{}`)}), out, plain}); err != nil {
		t.Fatal(err)
	}
	c.scan(idx, "/x/eda")
	loads, _, _, _ := c.request(0, 0)
	if len(loads) != 1 {
		t.Fatalf("%d loads %+v, want the bash result's body", len(loads), loads)
	}
	want := []LoadRef{{ID: "call_7", Skill: "eda", Kind: "read", Size: int64(len("the decoded body")), Hash: "h-eda", Offset: loads[0].Offset}}
	if d := cmp.Diff(want, loads); d != "" {
		t.Errorf("loads (-want +got):\n%s", d)
	}
}
