package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/session"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// The bridge's skills section is bounded (host/listing.go): a pack whose
// descriptions exceed the budget is listed with them shortened. Replay's
// bridge header is the section the sidecar gives the bridge, not the
// whole listing.
func TestBridgeHeaderBoundedListing(t *testing.T) {
	dir := t.TempDir()
	var list []host.HostSkill
	for i := range 30 {
		name := fmt.Sprintf("skill-%02d", i)
		desc := fmt.Sprintf("Skill %d does one thing. ", i) + strings.Repeat("Long words about the task it does. ", 25)
		p := filepath.Join(dir, name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\n\nBODY\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		list = append(list, host.HostSkill{Name: name, Description: desc, Path: p})
	}
	_, init, err := host.Open(host.InitializeParams{Skills: list, Cwd: dir}, &EngineStrategy{}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat := skills.Discover(skills.Options{Paths: []string{dir}, NoDefaults: true})
	pack := PackOf(cat, nil)
	if full := skills.BridgeListing(pack.Listing); len(init.SystemPromptSection) >= len(full) {
		t.Fatalf("the sidecar's section (%d bytes) is not bounded below the whole listing (%d)", len(init.SystemPromptSection), len(full))
	}
	read := filepath.Join(dir, "skill-00", "SKILL.md")
	lines := []string{
		`{"type":"session","version":3,"id":"l","timestamp":"2026-01-01T00:00:00.000Z","cwd":"` + dir + `"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"go"}],"timestamp":1767225601000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"` + read + `"}}],"provider":"fake","model":"a","usage":{"input":0,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":5},"stopReason":"toolUse","timestamp":1767225602000}}`,
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"BODY"}],"isError":false,"timestamp":1767225603000}}`,
	}
	s, err := session.ReadFile(writeSession(t, lines...), nil)
	if err != nil {
		t.Fatal(err)
	}
	br := s.Branch(s.Leaf())
	v := newBridgeView(pack, detect(pack, br, dir), br, false)
	if v == nil {
		t.Fatal("no bridge view")
	}
	locs := make([]string, len(pack.Listing))
	for i, l := range pack.Listing {
		locs[i] = filepath.Join(dir, l.Name, "SKILL.md")
	}
	want := jsonLen(init.SystemPromptSection) - jsonLen(skills.PiListing(pack.Listing, locs)) +
		jsonLen("- "+skills.SkillToolName+": "+skills.SkillToolSnippet+"\n") + utf8.RuneCountInString(skillToolJSON())
	if v.HeaderDelta != want {
		t.Errorf("bridge header delta %d, want %d (the sidecar's section of %d characters)", v.HeaderDelta, want, jsonLen(init.SystemPromptSection))
	}
}
