package protocol

import (
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// TestSessionCompact: after a compaction the bodies summarised away are
// archived as compacted, the kept one comes back in the region under its
// re-attach id, and a later skill load of it is an ordinary one.
func TestSessionCompact(t *testing.T) {
	h := packServer(t, "")
	loads := BeforeRequestParams{Loads: []LoadRef{
		{ID: "c1", Skill: "write-sql-migration", Kind: lifecycle.ByTool, Size: 4000},
		{ID: "c2", Skill: "add-go-test", Kind: lifecycle.ByTool, Size: 3000},
	}}
	if err := h.call(MethodBeforeRequest, loads, nil); err != nil {
		t.Fatal(err)
	}
	h.rec.records(t)
	var res SessionCompactResult
	if err := h.call(MethodSessionCompact, SessionCompactParams{ID: "cmp1", Visible: []string{}}, &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "[skill-lifecycle: the conversation above was compacted.") {
		t.Errorf("region does not open with the intro:\n%.300s", res.Text)
	}
	var ids []string
	for _, b := range res.Bodies {
		ids = append(ids, b.ID)
		if !strings.Contains(res.Text, `<skill_content name="`+b.Skill+`">`) {
			t.Errorf("region lacks the block of %s", b.Skill)
		}
	}
	if len(res.Bodies) != 2 || ids[0] != "reattach:cmp1:add-go-test" || ids[1] != "reattach:cmp1:write-sql-migration" {
		t.Errorf("re-attached (most recent first) = %v", ids)
	}
	if res.Archived != 2 {
		t.Errorf("archived = %d, want the two compacted bodies", res.Archived)
	}
	var compacted, reattached int
	for _, d := range waitRecords(t, h.rec, 4) {
		switch {
		case d.Action == lifecycle.ActArchive && d.Reason != nil && d.Reason.Code == "compacted":
			compacted++
		case d.Action == lifecycle.ActLoad && d.Kind == lifecycle.ByReattach:
			reattached++
		}
	}
	if compacted != 2 || reattached != 2 {
		t.Errorf("records: %d compacted archives, %d reattach loads; want 2 and 2", compacted, reattached)
	}
	// The re-attached bodies are listed by the host as loads of kind
	// reattach and are not replaced.
	var br BeforeRequestResult
	next := BeforeRequestParams{Loads: []LoadRef{{ID: ids[0], Skill: "add-go-test", Kind: lifecycle.ByReattach, Size: res.Bodies[0].Size}}}
	if err := h.call(MethodBeforeRequest, next, &br); err != nil {
		t.Fatal(err)
	}
	if len(br.Archive) != 0 {
		t.Errorf("a re-attached body was archived at once: %+v", br.Archive)
	}
	if err := h.call(MethodSessionCompact, map[string]any{"visible": []string{}}, nil); rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "id") {
		t.Errorf("compact without id: %v", err)
	}
}
