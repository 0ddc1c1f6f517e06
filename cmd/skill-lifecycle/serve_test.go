package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// frames renders JSON-RPC messages with Content-Length framing.
func frames(msgs ...string) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return b.String()
}

// responses reads every framed message from out.
func responses(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(out))
	var got []map[string]any
	for {
		var n int
		for {
			line, err := r.ReadString('\n')
			if err == io.EOF {
				return got
			}
			if err != nil {
				t.Fatal(err)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				fmt.Sscan(v, &n)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("bad JSON %q: %v", body, err)
		}
		got = append(got, m)
	}
}

func TestServe(t *testing.T) {
	cwd := t.TempDir()
	initialize := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%d,"cwd":%q,"skills":[]}}`, protocol.Version, cwd)
	cases := []struct {
		name     string
		args     []string
		input    string
		wantCode int
		wantIDs  []float64 // ids of the responses, in order
		wantErr  string    // in stderr
	}{
		{"clean session", nil, frames(initialize, `{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`), 0, []float64{1, 2}, ""},
		{"input ends without shutdown", nil, frames(initialize), 1, []float64{1}, "without shutdown"},
		{"bad flag", []string{"--max-message", "0"}, "", 2, nil, "want a positive number"},
		{"unexpected argument", []string{"extra"}, "", 2, nil, "unexpected argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runServe(c.args, strings.NewReader(c.input), &out, &errb)
			if code != c.wantCode {
				t.Errorf("exit code %d, want %d; stderr: %s", code, c.wantCode, errb.String())
			}
			if c.wantErr != "" && !strings.Contains(errb.String(), c.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), c.wantErr)
			}
			var ids []float64
			for _, m := range responses(t, out.Bytes()) {
				if id, ok := m["id"].(float64); ok {
					ids = append(ids, id)
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(c.wantIDs) {
				t.Errorf("response ids %v, want %v; output:\n%s", ids, c.wantIDs, out.String())
			}
		})
	}
}
