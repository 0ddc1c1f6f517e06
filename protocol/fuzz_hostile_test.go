package protocol_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// fuzzEnd joins two io.Pipe halves into the server's stream.
type fuzzEnd struct {
	*io.PipeReader
	*io.PipeWriter
}

func (e fuzzEnd) Close() error {
	e.PipeReader.Close()
	return e.PipeWriter.Close()
}

func fuzzFrame(body []byte) []byte {
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

// fuzzIDs reads the server's frames and sends the id of every response.
func fuzzIDs(r io.Reader, ids chan<- string) {
	defer close(ids)
	br := bufio.NewReader(r)
	for {
		n := -1
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" && n >= 0 {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
					return
				}
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method == "" {
			ids <- string(m.ID)
		}
	}
}

// FuzzServe drives the JSON-RPC server with arbitrary input after a valid
// initialize. With framed set the input is one message body, correctly
// framed, and a valid call sent after it must still be answered (unless the
// input itself ended the session with exit); otherwise the input is raw
// bytes on the stream, and closing the stream must end Serve. The server
// must never panic or hang.
func FuzzServe(f *testing.F) {
	dir := f.TempDir()
	var skills []protocol.HostSkill
	for _, name := range []string{"sql-migration", "go-tests"} {
		p := filepath.Join(dir, "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		body := fmt.Sprintf("---\nname: %s\ndescription: The %s skill for tests.\n---\n\n# %s\n\nSteps.\n", name, name, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			f.Fatal(err)
		}
		skills = append(skills, protocol.HostSkill{Name: name, Description: "The " + name + " skill.", Path: p})
	}
	init, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1000000, "method": protocol.MethodInitialize,
		"params": protocol.InitializeParams{ProtocolVersion: protocol.Version, Cwd: dir, AgentDir: filepath.Join(dir, "agent"), Skills: skills}})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"skill/load","params":{"name":"go-tests"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"before_request","params":{"loads":[{"id":"c1","skill":"go-tests","kind":"tool","size":100}]}}`,
		`{"jsonrpc":"2.0","id":21,"method":"before_request","params":{"total":5000,"sincePreviousMs":400000,"previousSize":4000,"previousUsage":{"input":1e308,"cacheRead":-3,"cacheWrite":"x"},"loads":[{"id":"c1","skill":"go-tests","kind":"tool","size":100,"offset":50}]}}`,
		`{"jsonrpc":"2.0","id":22,"method":"before_request","params":{"total":5000,"previousSize":9000,"previousUsage":{"input":10,"cacheRead":4000.5,"cacheWrite":0},"loads":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"user_prompt","params":{"text":"write a migration"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tool_call","params":{"toolName":"bash","input":{"command":"cat ../go-tests/SKILL.md"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"command","params":{"name":"skills-explain","args":"add a test"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"session/restore","params":{"records":[{"action":"archive","skill":"go-tests","id":"c1"}]}}`,
		`{"jsonrpc":"2.0","id":7,"method":"skills/update","params":{"skills":[]}}`,
		`{"jsonrpc":"2.0","method":"model/switchFailed","params":{"provider":"p","id":"m"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"shutdown"}`,
		`{"jsonrpc":"2.0","id":8,"method":`,
		`[{"jsonrpc":"2.0","id":9,"method":"run/start"}]`,
	} {
		f.Add([]byte(s), true)
	}
	for _, s := range []string{
		"Content-Length: abc\r\n\r\n{}",
		"Content-Length: 5\r\n\r\n{\"jsonrpc\":\"2.0\"}",
		"Content-Length: 999999999999\r\n\r\n{}",
		"\r\n\r\nContent-Type: x\r\n\r\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, input []byte, framed bool) {
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		srv := protocol.NewServer(protocol.Options{ServerVersion: "fuzz", MaxMessage: 1 << 20})
		done := make(chan error, 1)
		go func() { done <- srv.Serve(context.Background(), fuzzEnd{sr, sw}); sw.Close() }()
		ids := make(chan string, 64)
		go fuzzIDs(cr, ids)
		defer func() { cw.Close(); sr.Close(); cr.Close() }()
		wait := func(want string) bool {
			deadline := time.After(10 * time.Second)
			for {
				select {
				case id, ok := <-ids:
					if !ok {
						return false
					}
					if id == want {
						return true
					}
				case <-deadline:
					t.Fatalf("no response with id %s within 10s", want)
				}
			}
		}
		go func() {
			cw.Write(fuzzFrame(init))
			if framed {
				cw.Write(fuzzFrame(input))
				cw.Write(fuzzFrame([]byte(`{"jsonrpc":"2.0","id":424242,"method":"command","params":{"name":"skills-list"}}`)))
			} else {
				cw.Write(input)
				cw.Close()
			}
		}()
		if framed {
			if !wait("1000000") {
				t.Fatal("no answer to initialize")
			}
			if !wait("424242") {
				select {
				case <-done: // the input ended the session (exit)
				case <-time.After(10 * time.Second):
					t.Fatal("the server stopped answering but did not end")
				}
			}
			return
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after its input closed")
		}
	})
}
