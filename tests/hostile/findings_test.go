package hostile

// Regression tests for findings of the catalogue (docs/reliability.md): a
// bad frame is answered with an error and ends the connection (the host
// starts a new sidecar), a header line without a line end is not buffered,
// a refused skill file comes with the list of loadable skills, and a
// response carries the request's id exactly as the host wrote it.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// TestHostileRPCBadFrame: a frame with a bad header or a wrong
// Content-Length is answered with an error, and the server ends the
// connection (where the next frame starts is unknown; the bridge starts a
// new sidecar and restores it from the session's records). Serve reports
// the end without shutdown.
func TestHostileRPCBadFrame(t *testing.T) {
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
			var more [][]byte
			for i := 0; i < 3; i++ {
				_, b := s.request(protocol.MethodCommand, protocol.CommandParams{Name: "skills-list"})
				more = append(more, frame([]byte(b)))
			}
			s.sendAside(append([][]byte{[]byte(tc.raw)}, more...)...)
			sawError := false
			deadline := time.After(10 * time.Second)
		read:
			for {
				select {
				case m := <-s.msgs:
					sawError = sawError || (m.Error != nil && string(m.ID) == "null")
				case <-s.closed:
					break read
				case <-deadline:
					t.Fatalf("the connection did not end (error reported: %v)", sawError)
				}
			}
			if !sawError {
				t.Errorf("no error was reported for the bad frame")
			}
			if err := <-s.done; !errors.Is(err, protocol.ErrExitWithoutShutdown) {
				t.Errorf("Serve returned %v, want ErrExitWithoutShutdown", err)
			}
		})
	}
}

// TestHostileRPCHugeHeaderLine: 100 MiB of header without a line end is
// not buffered: past 4 KiB the line is refused and the connection ends.
func TestHostileRPCHugeHeaderLine(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	grew := testio.Allocated(func() {
		chunk := bytes.Repeat([]byte("x"), mib)
		chunks := make([][]byte, 100)
		for i := range chunks {
			chunks[i] = chunk
		}
		s.sendAside(chunks...)
		wantErr(t, s.nextResponse(), protocol.CodeParseError, "header line")
		s.ended()
	})
	if grew > 16*mib {
		t.Errorf("a 100 MiB header line allocated %d MiB: it was buffered", grew/mib)
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
// whose id is an integer (int64's range) or a string carries that id byte
// for byte, on a result and on an error. A host that sent -1 used to get
// 18446744073709551615 back and wait for its answer forever. Any other id
// (a fraction, an exponent, beyond int64, null) is answered with an error
// whose id is null, and the server goes on.
func TestHostileRPCIDEchoedAsWritten(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	before := s.decide()
	for _, id := range []string{`-1`, `0`, `-0`, `9223372036854775807`, `-9223372036854775808`, `"-1"`, `""`, `"\u0041\/"`, `"</x>&"`} {
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
	for _, id := range []string{`1.5`, `1e3`, `1E+2`, `-2.5E-7`, `123456789012345678901234567890`, `18446744073709551615`, `null`} {
		t.Run("refused-id="+id, func(t *testing.T) {
			s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"command","params":{"name":"skills-list"}}`)
			m := s.nextResponse()
			if string(m.ID) != "null" {
				t.Errorf("response id %s, want null", m.ID)
			}
			wantErr(t, m, protocol.CodeInvalidRequest, "an integer or a string")
			if after := s.listText(); after != before {
				t.Errorf("state changed")
			}
		})
	}
}
