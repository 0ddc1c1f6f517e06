package hostile

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// readGuardPack is the small pack plus skills whose folders need Pi's
// path variants: a space in the name (look-alike spaces map to it), a
// macOS screenshot name (U+202F before PM), a decomposed (NFD) name and a
// curly apostrophe. It returns the folders as the model would type them.
func readGuardPack(t *testing.T) (*pack, map[string]string) {
	p := newPack(t)
	typed := map[string]string{}
	for _, s := range []struct{ name, folder, typed string }{
		{"spaced", "my skill", "my skill"},
		{"screenshot", "Shot at 3.04\u202FPM.skill", "Shot at 3.04 PM.skill"},
		{"decomposed", "cafe\u0301", "caf\u00e9"},
		{"curly", "it\u2019s", "it's"},
	} {
		path := write(t, filepath.Join(p.dir, s.folder, "SKILL.md"), skillMD(s.name, "A skill in a folder with an unusual name.", "# "+s.name+"\n\nBODY-"+s.name))
		p.skills = append(p.skills, protocol.HostSkill{Name: s.name, Description: "A skill in a folder with an unusual name.", Path: path})
		typed[s.name] = filepath.Join(p.dir, s.typed, "SKILL.md")
	}
	return p, typed
}

// TestHostileReadGuardPiResolution: the reads Pi's read tool serves in
// full are blocked however the path and the range are written — a file://
// URL, a look-alike space, a macOS file-name variant, Pi 0.73's as-written
// absolute path, a fractional, zero or negative offset, a limit that
// covers the file — and the reads that leave some of it out are served
// (docs/protocol.md, tool_call; protocol/readpath.go has Pi's rules).
func TestHostileReadGuardPiResolution(t *testing.T) {
	p, typed := readGuardPack(t)
	file := p.skills[1].Path // go-tests
	dir := filepath.Dir(file)
	// Pi 0.73 opens an absolute path as written: ".." after a link leaves
	// the link's target. project/refs -> skills/go-tests/references.
	write(t, filepath.Join(dir, "references", "x.md"), []byte("# x\n"))
	symlink(t, filepath.Join(dir, "references"), filepath.Join(p.cwd, "refs"))
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(p)

	read := func(path string, rng ...any) map[string]any {
		in := map[string]any{"path": path}
		for i := 0; i+1 < len(rng); i += 2 {
			in[rng[i].(string)] = rng[i+1]
		}
		return in
	}
	for _, tc := range []struct {
		name  string
		input any
		skill string // "" when the read must be served
	}{
		{"file-url", read("file://" + file), "go-tests"},
		{"file-url-localhost", read("file://localhost" + file), "go-tests"},
		{"file-url-percent-encoded", read("file://" + strings.Replace(file, "SKILL.md", "%53KILL%2Emd", 1)), "go-tests"},
		{"file-url-dot-segments", read("file://" + dir + "/%2e%2E/go-tests/./SKILL.md"), "go-tests"},
		{"file-url-backslashes", read("file://" + strings.ReplaceAll(file, "/", `\`)), "go-tests"},
		{"file-url-query-and-fragment", read("file://" + file + "?raw=1#top"), "go-tests"},
		{"file-url-line-break-and-trailing-space", read("file://" + file[:4] + "\n\t" + file[4:] + "  "), "go-tests"},
		{"file-url-at-prefixed", read("@file://" + file), "go-tests"},
		{"file-url-space-encoded", read("file://" + strings.ReplaceAll(typed["spaced"], " ", "%20")), "spaced"},
		{"no-break-space", read(strings.ReplaceAll(typed["spaced"], " ", "\u00a0")), "spaced"},
		{"figure-space", read(strings.ReplaceAll(typed["spaced"], " ", "\u2007")), "spaced"},
		{"narrow-no-break-space", read(strings.ReplaceAll(typed["spaced"], " ", "\u202f")), "spaced"},
		{"ideographic-space", read(strings.ReplaceAll(typed["spaced"], " ", "\u3000")), "spaced"},
		{"macos-screenshot-am-pm", read(typed["screenshot"]), "screenshot"},
		{"macos-nfd-name", read(typed["decomposed"]), "decomposed"},
		{"macos-curly-apostrophe", read(typed["curly"]), "curly"},
		{"pi073-absolute-dotdot-after-link", read(filepath.Join(p.cwd, "refs") + "/../SKILL.md"), "go-tests"},
		{"offset-half", read(file, "offset", 0.5), "go-tests"},
		{"offset-one-and-a-half", read(file, "offset", 1.5), "go-tests"},
		{"offset-just-under-two", read(file, "offset", 1.9999), "go-tests"},
		{"offset-zero", read(file, "offset", 0), "go-tests"},
		{"offset-negative", read(file, "offset", -3), "go-tests"},
		{"offset-null", read(file, "offset", nil), "go-tests"},
		{"offset-numeric-string", read(file, "offset", "1.5"), "go-tests"},
		{"limit-covers-the-file", read(file, "limit", 1000), "go-tests"},
		{"offset-one-limit-covers-the-file", read(file, "offset", 1, "limit", 12.5), "go-tests"},
		{"limit-minus-one-drops-only-the-final-newline", read(file, "limit", -1), "go-tests"},
		{"limit-huge", read(file, "offset", 0.5, "limit", 1e300), "go-tests"},
		{"file-url-with-offset-half", read("file://"+file, "offset", 0.5), "go-tests"},
		// Served: the range leaves text out, or Pi does not open the file.
		{"offset-two-reads-on", read(file, "offset", 2), ""},
		{"offset-two-and-a-half", read(file, "offset", 2.5), ""},
		{"limit-partial", read(file, "limit", 3), ""},
		{"limit-negative-drops-lines", read(file, "limit", -4), ""},
		{"offset-past-the-end", read(file, "offset", 1e9), ""},
		{"leading-space-is-kept", read(" " + file), ""},
		{"file-url-uppercase-scheme-is-a-relative-path", read("FILE://" + file), ""},
		{"url-encoded-plain-path", read(strings.ReplaceAll(file, "/", "%2F")), ""},
		{"other-file-by-url", read("file://" + filepath.Join(dir, "references", "x.md")), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := json.Marshal(tc.input)
			if err != nil {
				t.Fatal(err)
			}
			var r protocol.ToolCallResult
			s.ok(s.call(protocol.MethodToolCall, protocol.ToolCallParams{ToolName: "read", Input: in, Cwd: p.cwd}), &r)
			if r.Block != (tc.skill != "") {
				t.Fatalf("block = %v, want %v for %s (%+v)", r.Block, tc.skill != "", in, r)
			}
			if r.Block && (r.Skill != tc.skill || !strings.Contains(r.Reason, "skill tool") || !strings.Contains(r.Reason, `call skill with name "`+tc.skill+`"`)) {
				t.Errorf("skill %q, reason %q: want the skill tool and %q", r.Skill, r.Reason, tc.skill)
			}
		})
	}
}
