package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExplainModel(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "skill-lifecycle.json")
	if err := os.WriteFile(cfg, []byte(`{"models": {"tiers": {"small": {"provider": "local", "model": "mini", "thinkingLevel": "low", "scope": "run"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join("..", "..", "testdata", "pack")
	type got struct {
		Model  string `json:"model"`
		Switch bool   `json:"switch"`
	}
	tests := []struct {
		name string
		args []string
		code int
		want got
	}{
		{"labelled skill switches to its tier", []string{"--config", cfg, "--model", "write-release-notes", "--current", "local/big:high"}, 0, got{"local/mini (thinking low)", true}},
		{"unlabelled skill keeps the current model", []string{"--config", cfg, "--model", "design-http-api", "--current", "local/big:high"}, 0, got{"local/big (thinking high)", false}},
		{"no tiers defined: nothing switches", []string{"--model", "write-release-notes", "--current", "local/big"}, 0, got{"local/big", false}},
		{"unknown skill", []string{"--config", cfg, "--model", "no-such-skill"}, 2, got{}},
		{"bad current model", []string{"--config", cfg, "--model", "write-release-notes", "--current", "nonsense"}, 2, got{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"explain", "--json", "--skills", pack}, tc.args...)
			if code := run(args, &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errb.String())
			}
			if tc.code != 0 {
				if errb.Len() == 0 {
					t.Error("no message on stderr")
				}
				return
			}
			var g got
			if err := json.Unmarshal(out.Bytes(), &g); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
