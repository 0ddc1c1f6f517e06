package hostile

// Regression tests for findings of the catalogue (docs/reliability.md): a
// bad frame costs only itself (the codec resynchronises on the next
// Content-Length header), a header line without a line end is not buffered
// whole, a refused skill file comes with the list of loadable skills, and a
// response carries the request's id exactly as the host wrote it.

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// TestHostileRPCFramingResync: after a frame with a bad header or a wrong
// Content-Length the server answers with an error and, at the latest from
// the second following message, serves again.
func TestHostileRPCFramingResync(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":77,"method":"command","params":{"name":"skills-list"}}`
	for _, tc := range []struct{ name, raw string }{
		{"content-length-not-a-number", "Content-Length: abc\r\n\r\n" + body},
		{"content-length-negative", "Content-Length: -5\r\n\r\n" + body},
		{"content-length-missing", "Content-Type: application/json\r\n\r\n" + body},
		{"content-length-too-small", fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)-10) + body},
		{"content-length-too-large", fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)+30) + body},
		{"header-without-colon", "Content-Length 20\r\n\r\n" + body},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
			s.initialize(newPack(t))
			before := s.decide()
			s.sendRaw([]byte(tc.raw))
			var ids []int
			for i := 0; i < 3; i++ {
				id, b := s.request(protocol.MethodCommand, protocol.CommandParams{Name: "skills-list"})
				ids = append(ids, id)
				s.send(b)
			}
			deadline := time.After(5 * time.Second)
			sawError := false
			for {
				select {
				case m := <-s.msgs:
					if m.Error != nil && string(m.ID) == "null" {
						sawError = true
						continue
					}
					if m.Error == nil && (string(m.ID) == fmt.Sprint(ids[1]) || string(m.ID) == fmt.Sprint(ids[2])) {
						if !sawError && tc.name != "content-length-too-large" {
							t.Errorf("no error was reported for the bad frame")
						}
						if after := s.listText(); after != before {
							t.Errorf("state changed")
						}
						return
					}
				case <-deadline:
					t.Fatalf("the server never served again after the bad frame (error reported: %v)", sawError)
				}
			}
		})
	}
}

// TestHostileRPCHugeHeaderLine: 100 MiB of header without a line end is
// not buffered whole.
func TestHostileRPCHugeHeaderLine(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	grew := testio.Allocated(func() {
		chunk := bytes.Repeat([]byte("x"), mib)
		for i := 0; i < 100; i++ {
			s.sendRaw(chunk)
		}
		s.sendRaw([]byte("\r\n\r\n"))
		wantErr(t, s.nextResponse(), protocol.CodeParseError, "header")
	})
	if grew > 16*mib {
		t.Errorf("a 100 MiB header line allocated %d MiB: it was buffered whole", grew/mib)
	}
}

// TestHostileSkillToolOutsideListsAvailable: refusing a SKILL.md that
// links outside its folder also lists the skills that may be loaded.
func TestHostileSkillToolOutsideListsAvailable(t *testing.T) {
	p, _ := hostilePack(t)
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(p)
	r := loadSkill(s.wire, "leak")
	for _, n := range []string{"go-tests", "sql-migration", "breakout"} {
		if !strings.Contains(r.Text, n) {
			t.Errorf("the refusal %q does not list %q", r.Text, n)
		}
	}
}

// TestHostileRPCIDEchoedAsWritten (finding 4): the response to a request
// carries its id byte for byte, whatever number or string it is, on a
// result and on an error. A host that sent -1 used to get
// 18446744073709551615 back and wait for its answer forever.
func TestHostileRPCIDEchoedAsWritten(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	before := s.decide()
	for _, id := range []string{`-1`, `-0`, `1.5`, `1e3`, `1E+2`, `-2.5E-7`, `123456789012345678901234567890`,
		`18446744073709551615`, `-9223372036854775809`, `null`, `"-1"`, `""`, `"\u0041\/"`, `"</x>&"`} {
		t.Run("id="+id, func(t *testing.T) {
			s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"command","params":{"name":"skills-list"}}`)
			m := s.nextResponse()
			if string(m.ID) != id {
				t.Errorf("result: response id %s, want %s", m.ID, id)
			}
			var r protocol.CommandResult
			s.ok(m, &r)
			if r.Text != before {
				t.Errorf("the call was not served: %q", r.Text)
			}
			s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"skills/explode"}`)
			m = s.nextResponse()
			if string(m.ID) != id {
				t.Errorf("error: response id %s, want %s", m.ID, id)
			}
			wantErr(t, m, protocol.CodeMethodNotFound, "skills/explode")
		})
	}
}
