package hostile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// TestHostileConfig: each bad skill-lifecycle.json gets a diagnostic
// naming the file, the line and the key; an error drops the whole file
// (its other keys do not half-apply), a warning keeps the rest.
func TestHostileConfig(t *testing.T) {
	const file = "/home/u/.pi/agent/skill-lifecycle.json"
	for _, tc := range []struct {
		name  string
		data  string
		line  int
		key   string
		sev   skills.Severity
		words []string
	}{
		{"wrong-type-string-for-int", "{\n  \"enabled\": false,\n  \"topK\": \"3\"\n}", 3, "topK", skills.Error, []string{"number"}},
		{"wrong-type-string-for-bool", "{\n  \"topK\": 2,\n  \"enabled\": \"yes\"\n}", 3, "enabled", skills.Error, nil},
		{"wrong-type-object-for-list", "{\"pinned\": {\"a\": 1}}", 1, "pinned", skills.Error, nil},
		{"wrong-type-rule-element", "{\n\"rules\": [\n {\"skillName\": 3, \"keywords\": [\"x\"]}\n]}", 3, "rules[0].skillName", skills.Error, nil},
		{"unknown-key-with-suggestion", "{\n  \"topk\": 3\n}", 2, "topk", skills.Warning, []string{"unknown key", `"topK"`}},
		{"unknown-key", "{\"make-it-fast\": true}", 1, "make-it-fast", skills.Warning, []string{"unknown key"}},
		{"huge-number-float", "{\"topK\": 1e300}", 1, "topK", skills.Error, []string{"too large"}},
		{"huge-number-integer", "{\"minKeep\": 99999999999999999999999999}", 1, "minKeep", skills.Error, []string{"too large"}},
		{"huge-number-overflow", "{\"threshold\": 1e999}", 1, "threshold", skills.Error, []string{"out of range"}},
		{"negative-topK", "{\"topK\": -1}", 1, "topK", skills.Error, []string{"negative"}},
		{"fractional-topK", "{\"topK\": 2.5}", 1, "topK", skills.Error, nil},
		{"nan-like-string", "{\"threshold\": \"NaN\"}", 1, "threshold", skills.Error, []string{"number"}},
		{"infinity-like-string", "{\"minSignal\": \"Infinity\"}", 1, "minSignal", skills.Error, []string{"number"}},
		{"bare-nan-token", "{\n\"threshold\": NaN\n}", 2, "", skills.Error, []string{"invalid"}},
		{"truncated-json", "{\n  \"topK\": 3,\n  \"pinned\": [\"a\",", 3, "", skills.Error, nil},
		{"not-an-object", "[1, 2, 3]", 0, "", skills.Error, []string{"one JSON object"}},
		{"deeply-nested", "{\"models\": " + strings.Repeat("[", 50_000) + strings.Repeat("]", 50_000) + "}", 1, "", skills.Error, nil},
		{"models-wrong-type", "{\"models\": \"fast\"}", 1, "models", skills.Error, []string{"object"}},
		{"binary-garbage", "\x00\x01\x02\xff\xfe", 1, "", skills.Error, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frag, ds := rules.Parse([]byte(tc.data), file)
			var hit *rules.Diagnostic
			for i, d := range ds {
				if d.Severity == tc.sev && d.Key == tc.key {
					hit = &ds[i]
					break
				}
			}
			if hit == nil {
				t.Fatalf("no %s on key %q; got %+v", tc.sev, tc.key, ds)
			}
			if hit.File != file || (tc.line > 0 && hit.Line != tc.line) {
				t.Errorf("diagnostic %q does not point at %s:%d", hit.String(), file, tc.line)
			}
			for _, w := range tc.words {
				if !strings.Contains(hit.Message, w) {
					t.Errorf("message %q does not mention %q", hit.Message, w)
				}
			}
			if tc.sev == skills.Error && !cmp.Equal(frag, rules.Fragment{}) {
				t.Errorf("a file with an error half-applied: %+v", frag)
			}
			if cfg := rules.Merge(frag, rules.Fragment{}, rules.Trusted); cfg.TopK < 0 || cfg.TopK > 1_000_000 {
				t.Errorf("effective topK %d", cfg.TopK)
			}
		})
	}
}

// TestHostileConfigHugeFile: a 100 MiB skill-lifecycle.json is refused by
// its size before it is parsed, the sidecar says so, the defaults apply,
// and it is not read whole.
func TestHostileConfigHugeFile(t *testing.T) {
	p := newPack(t)
	cfgPath := filepath.Join(p.agentDir, rules.FileName)
	f, err := os.Create(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"topK": 1, "pinned": [`)
	chunk := bytes.Repeat([]byte(`"go-tests",`), mib/11)
	for i := 0; i < 100; i++ {
		f.Write(chunk)
	}
	f.WriteString(`"go-tests"]}`)
	f.Close()

	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	var init protocol.InitializeResult
	grew := testio.Allocated(func() { init = s.initialize(p) })
	found := false
	for _, d := range init.Diagnostics {
		found = found || (strings.Contains(d, cfgPath) && strings.Contains(d, "ignored"))
	}
	if !found {
		t.Errorf("no diagnostic names %s as ignored: %q", cfgPath, init.Diagnostics)
	}
	if grew > 16*mib {
		t.Errorf("initialize allocated %d MiB with a 100 MiB configuration file", grew/mib)
	}
	t.Logf("initialize with a 100 MiB configuration: %.1f MiB allocated", float64(grew)/mib)
	if text := s.listText(); strings.Contains(text, "pinned") {
		t.Errorf("the oversized file applied:\n%s", text)
	}
}

// TestHostileConfigBadFileThroughSidecar: a broken project file is
// reported at initialize with its path, line and key, and the user's
// valid file still applies.
func TestHostileConfigBadFileThroughSidecar(t *testing.T) {
	p := newPack(t)
	write(t, filepath.Join(p.agentDir, rules.FileName), []byte(`{"pinned": ["go-tests"]}`))
	project := write(t, filepath.Join(p.cwd, ".pi", rules.FileName), []byte("{\n  \"topK\": -4,\n  \"pinned\": []\n}"))
	ip := p.initParams()
	yes := true
	ip.Trusted = &yes
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	var init protocol.InitializeResult
	s.ok(s.call(protocol.MethodInitialize, ip), &init)
	found := false
	for _, d := range init.Diagnostics {
		found = found || strings.HasPrefix(d, project+":2: error: topK:")
	}
	if !found {
		t.Errorf("no diagnostic %s:2 on topK in %q", project, init.Diagnostics)
	}
	if text := s.listText(); !strings.Contains(text, "go-tests [pinned") {
		t.Errorf("the user's valid file did not apply:\n%s", text)
	}
}

// TestHostileReplayHugeConfig: replay refuses a 100 MiB configuration by
// its size, naming it, without reading it whole.
func TestHostileReplayHugeConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"pinned": [`)
	chunk := bytes.Repeat([]byte(`"go-tests",`), mib/11)
	for i := 0; i < 100; i++ {
		f.Write(chunk)
	}
	f.WriteString(`"x"]}`)
	f.Close()
	var lerr error
	grew := testio.Allocated(func() { _, _, lerr = host.ReadConfigFile(path) })
	if lerr == nil || !strings.Contains(lerr.Error(), path) {
		t.Errorf("error %v does not refuse %s", lerr, path)
	}
	if grew > 16*mib {
		t.Errorf("loading a 100 MiB configuration allocated %d MiB", grew/mib)
	}
	t.Logf("replay --config with a 100 MiB file: %.1f MiB allocated", float64(grew)/mib)
}

// TestHostileConfigModelTierErrors (issue 27, item 11): a problem in the
// `models` key (model tiers) is reported with the configuration file's
// full path and the line of the key at fault, for the user's file and for
// a trusted project's. They used to name only "skill-lifecycle.json".
func TestHostileConfigModelTierErrors(t *testing.T) {
	const cfg = "{\n  \"topK\": 3,\n  \"models\": {\n    \"tiers\": {\n      \"big\": {\"provider\": \"p\", \"model\": \"m\",\n              \"scope\": \"forever\"},\n      \"small\": {\"provider\": \"p\"}\n    },\n    \"colour\": true\n  }\n}\n"
	for _, where := range []string{"user", "project"} {
		t.Run(where, func(t *testing.T) {
			p := newPack(t)
			ip := p.initParams()
			file := filepath.Join(p.agentDir, rules.FileName)
			if where == "project" {
				file = filepath.Join(p.cwd, ".pi", rules.FileName)
				yes := true
				ip.Trusted = &yes
			}
			write(t, file, []byte(cfg))
			s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
			var init protocol.InitializeResult
			s.ok(s.call(protocol.MethodInitialize, ip), &init)
			for _, want := range []string{
				file + ":6: error: models.tiers.big.scope: ",
				file + ":7: error: models.tiers.small: missing \"model\"",
				file + ":9: warning: models.colour: unknown key",
			} {
				found := false
				for _, d := range init.Diagnostics {
					found = found || strings.Contains(d, want)
				}
				if !found {
					t.Errorf("no diagnostic %q in %q", want, init.Diagnostics)
				}
			}
		})
	}
}
