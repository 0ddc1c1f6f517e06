package rules

import (
	"strings"
	"testing"
	"time"
)

func TestCacheSurvived(t *testing.T) {
	cases := []struct {
		name     string
		u        Usage
		expect   float64
		warm, ok bool
	}{
		{"all of the previous request read", Usage{Input: 100, CacheRead: 9000, CacheWrite: 900}, 0.9, true, true},
		{"half of the expected share read", Usage{CacheRead: 4500, CacheWrite: 5500}, 0.9, true, true},
		{"just under half", Usage{CacheRead: 4499, CacheWrite: 5501}, 0.9, false, true},
		{"nothing read: cold", Usage{CacheWrite: 10000}, 0.9, false, true},
		{"a shared system prompt read, the conversation written: cold", Usage{CacheRead: 1500, CacheWrite: 8500}, 0.9, false, true},
		{"OpenAI: no writes reported, the prefix read", Usage{Input: 1000, CacheRead: 9000}, 0.9, true, true},
		{"expected prefix under MinJudgedTokens", Usage{CacheWrite: 4000}, 0.5, false, false},
		{"expected prefix at MinJudgedTokens", Usage{CacheWrite: 4096}, 0.5, false, true},
		{"no prompt", Usage{}, 0.9, false, false},
		{"nothing expected", Usage{CacheWrite: 10000}, 0, false, false},
		{"negative figure", Usage{Input: -1, CacheRead: 9000}, 0.9, false, false},
		{"expect above 1 counts as 1", Usage{CacheRead: 5000, CacheWrite: 5000}, 3, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			warm, ok := CacheSurvived(tc.u, tc.expect)
			if warm != tc.warm || ok != tc.ok {
				t.Errorf("CacheSurvived(%+v, %g) = %v, %v; want %v, %v", tc.u, tc.expect, warm, ok, tc.warm, tc.ok)
			}
		})
	}
}

func TestLifetime(t *testing.T) {
	const ttl = 5 * time.Minute
	warm := Usage{CacheRead: 9000, CacheWrite: 1000}
	cold := Usage{CacheWrite: 10000}
	type obs struct {
		u     Usage
		pause time.Duration
	}
	type ask struct {
		d           time.Duration
		known, cold bool
	}
	min := time.Minute
	cases := []struct {
		name string
		obs  []obs
		asks []ask
	}{
		{"nothing learned: the hedge stands", nil,
			[]ask{{6 * min, false, false}, {2 * time.Hour, false, false}}},
		{"within the lifetime: nothing to judge", []obs{{warm, time.Second}, {warm, 4 * min}},
			[]ask{{4 * min, false, false}, {6 * min, false, false}}},
		{"a pause past the lifetime found warm: shorter ones are warm, longer ones hedged",
			[]obs{{warm, 10 * time.Second}, {warm, 8 * min}},
			[]ask{{6 * min, true, false}, {8 * min, true, false}, {9 * min, false, false}, {5 * min, false, false}}},
		{"a pause found cold after reads were reported: the declared lifetime holds",
			[]obs{{warm, 10 * time.Second}, {cold, 8 * min}},
			[]ask{{6 * min, true, true}, {20 * min, true, true}, {5 * min, false, false}}},
		{"a cold finding from a provider that never reported a read proves nothing",
			[]obs{{cold, 10 * time.Second}, {cold, 8 * min}},
			[]ask{{6 * min, false, false}, {20 * min, false, false}}},
		{"a miss within the lifetime is noise, not the lifetime",
			[]obs{{warm, 10 * time.Second}, {cold, 4 * min}},
			[]ask{{6 * min, false, false}}},
		{"warm at 8 and cold at 20 minutes: between them hedged",
			[]obs{{warm, 10 * time.Second}, {warm, 8 * min}, {cold, 20 * min}},
			[]ask{{7 * min, true, false}, {10 * min, false, false}, {20 * min, true, true}, {30 * min, true, true}}},
		{"the latest word wins: warm after a pause found cold before",
			[]obs{{warm, 10 * time.Second}, {cold, 8 * min}, {warm, 9 * min}},
			[]ask{{8 * min, true, false}, {9 * min, true, false}, {10 * min, false, false}}},
		{"the latest word wins: cold after a pause found warm before",
			[]obs{{warm, 10 * time.Second}, {warm, 9 * min}, {cold, 8 * min}},
			[]ask{{6 * min, true, true}, {9 * min, true, true}}},
		{"a usage too small to judge teaches nothing",
			[]obs{{warm, 10 * time.Second}, {Usage{CacheWrite: 1000}, 8 * min}},
			[]ask{{8 * min, false, false}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l Lifetime
			for _, o := range tc.obs {
				l.Observe(o.u, 0.9, o.pause, ttl)
			}
			for _, a := range tc.asks {
				known, c, why := l.Judge(a.d, ttl)
				if known != a.known || c != a.cold {
					t.Errorf("after %v (%+v): Judge(%v) = known %v cold %v; want %v %v", tc.obs, l, a.d, known, c, a.known, a.cold)
				}
				if known != (why != "") {
					t.Errorf("Judge(%v): known %v with reason %q", a.d, known, why)
				}
				if known && !strings.Contains(why, "earlier in this session") {
					t.Errorf("Judge(%v): reason %q does not say what was learned", a.d, why)
				}
			}
		})
	}
}

func TestLifetimeNoDeclaredLifetime(t *testing.T) {
	var l Lifetime
	l.Observe(Usage{CacheRead: 9000, CacheWrite: 1000}, 0.9, time.Second, 0)
	l.Observe(Usage{CacheWrite: 10000}, 0.9, time.Hour, 0)
	if l.WarmUpTo != 0 || l.ColdFrom != 0 || !l.Reports {
		t.Errorf("without a declared lifetime nothing is learned but that reads are reported: %+v", l)
	}
	if known, _, _ := l.Judge(time.Hour, 0); known {
		t.Error("Judge without a declared lifetime knows something")
	}
}

func TestParseLearnFromUsage(t *testing.T) {
	if !DefaultCacheAware().LearnFromUsage {
		t.Fatal("learnFromUsage is off by default")
	}
	f, diags := Parse([]byte(`{"cacheAware": {"learnFromUsage": false}}`), "x.json")
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if c := Merge(f, Fragment{}, Untrusted); c.CacheAware.LearnFromUsage {
		t.Error("learnFromUsage false did not apply")
	}
	_, diags = Parse([]byte(`{"cacheAware": {"learnFromUsage": "yes"}}`), "x.json")
	if len(diags) == 0 || !strings.Contains(diags[0].String(), "cacheAware.learnFromUsage") {
		t.Errorf("a string for learnFromUsage: %v, want an error naming cacheAware.learnFromUsage", diags)
	}
}

func TestTTLFor(t *testing.T) {
	c := DefaultCacheAware()
	for _, m := range []*ModelCache{nil, {}, {ReadPrice: 0.5, WritePrice: 1}, {TTLSeconds: 3600}} {
		got, _ := c.ForModel(m)
		if c.TTLFor(m) != got.TTL() {
			t.Errorf("TTLFor(%+v) = %v, ForModel's lifetime %v", m, c.TTLFor(m), got.TTL())
		}
	}
	c.FromModel = false
	if got := c.TTLFor(&ModelCache{TTLSeconds: 3600}); got != 5*time.Minute {
		t.Errorf("fromModel off: TTLFor = %v, want the file's 5m", got)
	}
}
