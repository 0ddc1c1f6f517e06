package hostile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// TestHostileLargeCatalog: 2,000 installed skills (a 600,000-character
// listing) through the sidecar. The skills section stays within the
// default budget (16,000 characters) and says how many skills it leaves
// out; a skill it leaves out is found by skill/search; a mistyped name is
// answered with the closest matches, not 2,000 names. Before issue 30 the
// section listed every skill and an unknown name listed them all again.
func TestHostileLargeCatalog(t *testing.T) {
	p := newPack(t)
	pack := gen.Pack(gen.Options{N: 2000, Seed: 7, MinBody: 200, MaxBody: 400})
	dir := filepath.Join(filepath.Dir(p.dir), "big")
	if err := gen.Write(dir, pack); err != nil {
		t.Fatal(err)
	}
	for _, s := range pack {
		p.skills = append(p.skills, protocol.HostSkill{Name: s.Name, Description: s.Description, Path: filepath.Join(dir, s.Name, "SKILL.md")})
	}
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	init := s.initialize(p)
	sec := init.SystemPromptSection
	if n := utf8.RuneCountInString(sec); n > 16000 {
		t.Errorf("the skills section is %d characters, over the 16,000 default budget", n)
	}
	listed := strings.Count(sec, "<skill>")
	if want := fmt.Sprintf("%d more skills are not listed", len(p.skills)-listed); !strings.Contains(sec, want) {
		t.Errorf("the section lists %d of %d skills and does not say %q", listed, len(p.skills), want)
	}
	var out string
	for _, g := range pack {
		if !strings.Contains(sec, "<name>"+g.Name+"</name>") {
			out = g.Name
			break
		}
	}
	var found protocol.SkillSearchResult
	for _, g := range pack {
		if g.Name == out {
			s.ok(s.call(protocol.MethodSkillSearch, protocol.SkillSearchParams{Query: g.Description}), &found)
		}
	}
	if len(found.Matches) == 0 || found.Matches[0].Name != out || !strings.Contains(found.Text, "- "+out+": ") {
		t.Errorf("skill/search for the description of %q, left out of the listing: %+v", out, found)
	}
	if r := loadSkill(s.wire, out+"-typo"); r.Found || len(r.Text) > 2000 || !strings.Contains(r.Text, "query") {
		t.Errorf("an unknown name among 2,000 skills: %d characters: %.300s", len(r.Text), r.Text)
	}
	if r := loadSkill(s.wire, out); !r.Found {
		t.Errorf("%q not loaded: %s", out, r.Text)
	}
}
