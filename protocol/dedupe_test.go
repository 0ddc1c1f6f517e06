package protocol

import (
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func TestSkillLoadDedupe(t *testing.T) {
	for _, tt := range []struct {
		config      string
		wantAlready bool
	}{
		{`{}`, rules.DefaultDedupe == rules.DedupeAlreadyLoaded},
		{`{"dedupe": "already-loaded"}`, true},
		{`{"dedupe": "archive-older"}`, false},
	} {
		h := packServer(t, tt.config)
		var first, second SkillLoadResult
		if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "add-go-test", CallID: "c1"}, &first); err != nil || !first.Found || first.AlreadyLoaded {
			t.Fatalf("%s: first load: %+v %v", tt.config, first, err)
		}
		recs := waitRecords(t, h.rec, 1)
		if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "add-go-test", CallID: "c2"}, &second); err != nil {
			t.Fatal(err)
		}
		if second.AlreadyLoaded != tt.wantAlready {
			t.Errorf("%s: second load AlreadyLoaded = %v, want %v", tt.config, second.AlreadyLoaded, tt.wantAlready)
		}
		if tt.wantAlready {
			if !strings.HasPrefix(second.Text, `Skill "add-go-test" is already loaded`) || second.Hash != first.Hash {
				t.Errorf("%s: already-loaded answer %+v", tt.config, second)
			}
			if got := h.rec.records(t); len(got) != 0 {
				t.Errorf("%s: already-loaded recorded %v", tt.config, actions(got))
			}
		} else {
			if second.Text != first.Text {
				t.Errorf("%s: the body was not delivered again", tt.config)
			}
			got := waitRecords(t, h.rec, 2)
			// Archived, or (cache-aware archiving, the default) due for archive.
			if a := actions(got); !contains(a, "archive:add-go-test") && !contains(a, "due:add-go-test") {
				t.Errorf("%s: the older copy was not dropped: %v (first: %v)", tt.config, a, actions(recs))
			}
		}
	}
}
