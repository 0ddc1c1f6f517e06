package host

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func TestRequestOf(t *testing.T) {
	ph := strings.Repeat("p", 100)
	cases := []struct {
		name     string
		p        BeforeRequestParams
		archived map[string]string
		want     lifecycle.Request
	}{
		{
			name: "no positions",
			p:    BeforeRequestParams{SincePreviousMs: 2500, CacheCold: true, Loads: []LoadRef{{ID: "a", Size: 10, Offset: 5}}},
			want: lifecycle.Request{SincePrevious: 2500 * time.Millisecond, CacheCold: true, CharsPerUnit: 1},
		},
		{
			name: "a pause the host kept warm",
			p:    BeforeRequestParams{SincePreviousMs: 600000, CacheWarm: true, SinceWarmedMs: 120000, Loads: []LoadRef{{ID: "a", Size: 10, Offset: 5}}},
			want: lifecycle.Request{SincePrevious: 10 * time.Minute, CacheWarm: true, SinceWarmed: 2 * time.Minute, CharsPerUnit: 1},
		},
		{
			name: "a pause in which the host stopped warming",
			p:    BeforeRequestParams{SincePreviousMs: 900000, CacheStopped: true, SinceWarmedMs: 300500},
			want: lifecycle.Request{SincePrevious: 15 * time.Minute, CacheStopped: true, SinceWarmed: 300500 * time.Millisecond, CharsPerUnit: 1},
		},
		{
			name: "an archived body moves the later ones back",
			p: BeforeRequestParams{Total: 3000, ModelChanged: true, Loads: []LoadRef{
				{ID: "a", Size: 1000, Offset: 100}, {ID: "b", Size: 500, Offset: 1500}}},
			archived: map[string]string{"a": ph},
			want: lifecycle.Request{ModelChanged: true, CharsPerUnit: 1, Total: 2100, Bodies: []lifecycle.BodyPosition{
				{ID: "a", Offset: 100, Size: 100}, {ID: "b", Offset: 600, Size: 500}}},
		},
		{
			name: "negative time and a change point",
			p:    BeforeRequestParams{SincePreviousMs: -5, Total: 800, ChangedFrom: 40, Loads: []LoadRef{{ID: "a", Size: 300, Offset: 200}}},
			want: lifecycle.Request{CharsPerUnit: 1, Total: 800, ChangedFrom: 40, Bodies: []lifecycle.BodyPosition{{ID: "a", Offset: 200, Size: 300}}},
		},
		{
			name: "a change point after an archived body moves back with the bodies",
			// a saves 900: the change at 1,800 (in b) is at 900 in the
			// request as sent, and b at 600; one inside a, at 700, falls
			// at a's placeholder end (200).
			p: BeforeRequestParams{Total: 3000, ChangedFrom: 1800, Loads: []LoadRef{
				{ID: "a", Size: 1000, Offset: 100}, {ID: "b", Size: 500, Offset: 1500}}},
			archived: map[string]string{"a": ph},
			want: lifecycle.Request{CharsPerUnit: 1, Total: 2100, ChangedFrom: 900, Bodies: []lifecycle.BodyPosition{
				{ID: "a", Offset: 100, Size: 100}, {ID: "b", Offset: 600, Size: 500}}},
		},
		{
			name: "a change point inside an archived body falls at its placeholder",
			p: BeforeRequestParams{Total: 3000, ChangedFrom: 700, Loads: []LoadRef{
				{ID: "a", Size: 1000, Offset: 100}, {ID: "b", Size: 500, Offset: 1500}}},
			archived: map[string]string{"a": ph},
			want: lifecycle.Request{CharsPerUnit: 1, Total: 2100, ChangedFrom: 200, Bodies: []lifecycle.BodyPosition{
				{ID: "a", Offset: 100, Size: 100}, {ID: "b", Offset: 600, Size: 500}}},
		},
		{
			name: "the previous usage and size: an archived body before it shrinks the size",
			p: BeforeRequestParams{Total: 3000, PreviousSize: 2500, PreviousUsage: &UsageParams{Input: 10.5, CacheRead: 400, CacheWrite: 300},
				Loads: []LoadRef{{ID: "a", Size: 1000, Offset: 100}, {ID: "b", Size: 500, Offset: 2600}}},
			archived: map[string]string{"a": ph, "b": ph},
			want: lifecycle.Request{CharsPerUnit: 1, Total: 1700, Previous: 1600, PreviousUsage: &rules.Usage{Input: 10, CacheRead: 400, CacheWrite: 300},
				Bodies: []lifecycle.BodyPosition{{ID: "a", Offset: 100, Size: 100}, {ID: "b", Offset: 1700, Size: 100}}},
		},
		{
			name: "a size past the request, and a usage with a negative figure, are dropped",
			p:    BeforeRequestParams{Total: 800, PreviousSize: 900, PreviousUsage: &UsageParams{CacheRead: -1}},
			want: lifecycle.Request{CharsPerUnit: 1, Total: 800},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, requestOf(c.p, c.archived)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelCache(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	models := []HostModel{
		{Provider: "a", ID: "sonnet", Input: f(3), CacheRead: f(0.3), CacheWrite: f(3.75), PromptCache: &PromptCache{Short: 300, Long: 3600}},
		{Provider: "o", ID: "gpt", Input: f(1.25), CacheRead: f(0.125)},
		{Provider: "l", ID: "local", Input: f(0), CacheRead: f(0)},
		{Provider: "l", ID: "declared", PromptCache: &PromptCache{Short: 1e9}},
	}
	cases := []struct {
		name      string
		cur       *ModelRef
		retention string
		want      *rules.ModelCache
	}{
		{"no current model", nil, "", nil},
		{"not in the registry", &ModelRef{Provider: "x", ID: "y"}, "", nil},
		{"prices and the short lifetime", &ModelRef{Provider: "a", ID: "sonnet"}, "",
			&rules.ModelCache{Model: "a/sonnet", ReadPrice: 0.1, WritePrice: 1.25, TTLSeconds: 300}},
		{"the long tier", &ModelRef{Provider: "a", ID: "sonnet"}, "long",
			&rules.ModelCache{Model: "a/sonnet", ReadPrice: 0.1, WritePrice: 1.25, TTLSeconds: 3600}},
		{"no write price: writes billed as input", &ModelRef{Provider: "o", ID: "gpt"}, "",
			&rules.ModelCache{Model: "o/gpt", ReadPrice: 0.1, WritePrice: 1}},
		{"free or unknown prices say nothing", &ModelRef{Provider: "l", ID: "local"}, "", nil},
		{"a lifetime beyond a week is not believed", &ModelRef{Provider: "l", ID: "declared"}, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := modelCache(models, c.cur, c.retention)
			if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestEarlyReadGoesWithTheBody: a file of a skill's folder read before the
// skill is loaded (the bridge lists it with every request) is tied to the
// body at the first request that carries a live copy, and archived with
// it; a restarted session decides the same from the records and the
// request. Replay does the same (replay.TestReplayEarlyRead).
func TestEarlyReadGoesWithTheBody(t *testing.T) {
	mod := func(c *rules.Config) { c.CacheAware.Enabled = false }
	rec := &recorder{}
	s := New(gateWorld(mod), InitializeParams{}, rec, Options{})
	guide := LoadRef{ID: "g1", Skill: "eda", Kind: KindResource, Size: 500, Path: "references/guide.md"}
	s.RunStart()
	n := len(rec.recs)
	s.BeforeRequest(BeforeRequestParams{Loads: []LoadRef{guide}})
	if len(rec.recs) != n {
		t.Fatalf("a file read before its skill: %+v", rec.recs[n:])
	}
	s.ToolLoad("t1", "eda", "h-eda", 100)
	body := LoadRef{ID: "t1", Skill: "eda", Kind: lifecycle.ByTool, Size: 100}
	s.BeforeRequest(BeforeRequestParams{Loads: []LoadRef{guide, body}})
	if b, _ := s.eng.LiveCopy("eda"); len(b.Resources) != 1 || b.Resources[0].ID != "g1" {
		t.Fatalf("the live copy's files: %+v", b.Resources)
	}
	s.RunEnd()
	s.UserPrompt(UserPromptParams{Text: "deploy the release to production now please"})
	res, _ := s.BeforeRequest(BeforeRequestParams{Loads: []LoadRef{guide, body}})
	if len(res.Archive) != 2 {
		t.Errorf("archived %+v, want the body and its file", res.Archive)
	}
}
