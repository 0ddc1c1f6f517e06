package skills

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The bundled pack must stay valid in both modes: the README, the
// end-to-end tests and the benchmarks use it.
func TestBundledPack(t *testing.T) {
	for _, mode := range []Mode{Lenient, Strict} {
		c := Discover(Options{Paths: []string{"../testdata/pack"}, Mode: mode})
		if len(c.Diagnostics) != 0 {
			t.Errorf("%s: diagnostics: %s", mode, describe(c.Diagnostics))
		}
		want := []string{"add-go-test", "design-http-api", "format-commit-message", "profile-go-service",
			"trace-failing-request", "triage-web-task", "write-release-notes", "write-sql-migration"}
		if diff := cmp.Diff(want, c.Names()); diff != "" {
			t.Fatalf("%s: skills (-want +got):\n%s", mode, diff)
		}
		type meta struct {
			Role Role
			Tier string
		}
		got := map[string]meta{}
		refs := 0
		for _, s := range c.Skills {
			if s.Role != RoleNone || s.ModelTier != "" {
				got[s.Name] = meta{s.Role, s.ModelTier}
			}
			if n := len(s.Body); n < 2000 || n > 8192 {
				t.Errorf("%s: body is %d bytes, want 2-8 KB", s.Name, n)
			}
			neg := false
			for _, h := range s.Headings {
				neg = neg || h.Text == "When not to use"
			}
			if !neg {
				t.Errorf("%s: no \"When not to use\" heading", s.Name)
			}
			if _, err := os.Stat(filepath.Join(s.Dir, "references")); err == nil {
				refs++
			}
		}
		wantMeta := map[string]meta{
			"triage-web-task":       {RoleEntry, ""},
			"format-commit-message": {RoleHelper, ""},
			"write-release-notes":   {RoleNone, "small"},
		}
		if diff := cmp.Diff(wantMeta, got); diff != "" {
			t.Errorf("roles and tiers (-want +got):\n%s", diff)
		}
		if refs != 2 {
			t.Errorf("%d skills with references/, want 2", refs)
		}
	}
}
