package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// TestSkillsUpdateTakesTheNewConfiguration: skills/update loads the world
// again whole, the configuration with it, so the file whose diagnostics
// it reports is the one that applies. It used to report the new file's
// diagnostics and keep the old configuration: here the guard stayed on
// after the user's file switched it off.
func TestSkillsUpdateTakesTheNewConfiguration(t *testing.T) {
	h, f, _ := initialized(t)
	read, _ := json.Marshal(map[string]string{"path": f.alpha})
	var tr ToolCallResult
	if err := h.call(MethodToolCall, ToolCallParams{ToolName: "read", Input: read}, &tr); err != nil || !tr.Block {
		t.Fatalf("before: the read of a SKILL.md is not blocked: %+v, %v", tr, err)
	}
	agent := f.initParams().AgentDir
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agent, "skill-lifecycle.json"), []byte(`{"blockDirectSkillReads": false, "topk": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var up SkillsUpdateResult
	if err := h.call(MethodSkillsUpdate, SkillsUpdateParams{Skills: f.initParams().Skills}, &up); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(up.Diagnostics, "\n"), "topk") {
		t.Errorf("the new file's warning is not reported: %q", up.Diagnostics)
	}
	if err := h.call(MethodToolCall, ToolCallParams{ToolName: "read", Input: read}, &tr); err != nil || tr.Block {
		t.Errorf("after skills/update: the file switching the guard off does not apply: %+v, %v", tr, err)
	}
}

// TestSkillLoadSizeInUTF16: a skill tool load is recorded with the size of
// its text in UTF-16 code units, as the bridge counts the same result in
// before_request and as replay counts it. It used to be recorded in bytes,
// so a body with accents or dashes (the ML pack's) looked 1% larger to the
// rules (largeBodyChars) and to the re-attach budget than replay saw it.
func TestSkillLoadSizeInUTF16(t *testing.T) {
	h := startServer(t)
	f := newFixture(t)
	p := f.initParams()
	p.Skills[0].Path = writeSkill(t, f.root, "gamma", "Café menus — naïve pricing",
		"# Gamma\n\nPrice the café’s menus: crème brûlée, naïve “sums” — and 𝛑 digits.\n", nil)
	p.Skills[0].Name, p.Skills[0].Description = "gamma", "Café menus — naïve pricing"
	if err := h.call(MethodInitialize, p, nil); err != nil {
		t.Fatal(err)
	}
	var lr SkillLoadResult
	if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "gamma", CallID: "c1"}, &lr); err != nil || !lr.Found {
		t.Fatalf("skill/load: %+v, %v", lr, err)
	}
	want := int64(len(utf16.Encode([]rune(lr.Text))))
	for _, d := range h.rec.records(t) {
		if d.Action == lifecycle.ActLoad && d.ID == "c1" {
			if d.Size != want {
				t.Errorf("load recorded with size %d, want %d (UTF-16 units; %d bytes)", d.Size, want, len(lr.Text))
			}
			return
		}
	}
	t.Fatal("no load record")
}
