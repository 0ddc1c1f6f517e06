package hostile

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileCLI: bad arguments and bad files given to the command line
// get an exit status and a message naming what is wrong.
func TestHostileCLI(t *testing.T) {
	dir := t.TempDir()
	badCfg := write(t, filepath.Join(dir, "bad.json"), []byte("{\n  \"topK\": -2\n}"))
	pack := filepath.Join(dir, "pack")
	writeSkill(t, pack, "good", "Good.", "# Good")
	garbage := write(t, filepath.Join(pack, "garbage", "SKILL.md"), []byte("\x00\x01\x02\xff"))
	session := write(t, filepath.Join(dir, "s.jsonl"), []byte(sessHeader+sessMsg("a", "", "one")))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		words []string
	}{
		{"unknown-subcommand", []string{"destroy"}, 2, []string{`unknown command "destroy"`}},
		{"validate-missing-path", []string{"validate", filepath.Join(dir, "nope")}, 2, []string{filepath.Join(dir, "nope"), "does not exist"}},
		{"validate-file-not-folder", []string{"validate", badCfg}, 1, []string{badCfg}},
		{"list-pack-with-garbage", []string{"list", "--skills", pack}, 0, []string{"good", garbage, "not-utf8"}},
		{"serve-negative-max-message", []string{"serve", "--max-message", "-5"}, 2, []string{"--max-message -5: want a positive number of bytes"}},
		{"serve-stray-argument", []string{"serve", "now"}, 2, []string{`unexpected argument "now"`}},
		{"replay-bad-config", []string{"replay", "--config", "x=" + badCfg, session}, 2, []string{badCfg + ":2", "topK", "negative"}},
		{"replay-missing-session", []string{"replay", filepath.Join(dir, "gone.jsonl")}, 2, []string{filepath.Join(dir, "gone.jsonl")}},
		{"explain-without-prompt", []string{"explain"}, 2, []string{"PROMPT is required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.words {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output does not mention %q:\n%s%s", w, out, errOut)
				}
			}
			if strings.Contains(out+errOut, "panic") {
				t.Errorf("panic:\n%s", errOut)
			}
		})
	}
}
