package protocol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// The benchmarks of this file measure how the cost of one call grows with
// its size: loads in a before_request, records in a session/restore,
// characters in a user prompt. They drive the server over pipes with
// frames encoded once, before the timer starts, and read its answers
// without decoding them, so that ns/op and B/op are the server's own.

// rawClient writes prepared frames to a server and skips what it sends
// back up to the response.
type rawClient struct {
	w   io.Writer
	r   *bufio.Reader
	buf []byte
}

func startScale(b *testing.B) *rawClient {
	b.Helper()
	serverEnd, clientEnd := pipes()
	srv := NewServer(Options{ServerVersion: "bench", MaxMessage: 256 << 20})
	go func() { _ = srv.Serve(context.Background(), serverEnd) }()
	b.Cleanup(func() { clientEnd.Close(); serverEnd.Close() })
	return &rawClient{w: clientEnd, r: bufio.NewReaderSize(clientEnd, 1<<20)}
}

// frameOf encodes one request.
func frameOf(b *testing.B, id int, method string, params any) []byte {
	b.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		b.Fatal(err)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, p)
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// roundTrip writes a frame and reads frames up to the response, which must
// not be an error.
func (c *rawClient) roundTrip(b *testing.B, frame []byte) {
	if _, err := c.w.Write(frame); err != nil {
		b.Fatal(err)
	}
	for {
		n := -1
		for {
			line, err := c.r.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(line) == 0 {
				break
			}
			if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
				n, _ = strconv.Atoi(string(v))
			}
		}
		if cap(c.buf) < n {
			c.buf = make([]byte, n)
		}
		body := c.buf[:n]
		if _, err := io.ReadFull(c.r, body); err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(body[:min(len(body), 64)], []byte(`"method"`)) {
			continue // a notification
		}
		if bytes.Contains(body, []byte(`"error"`)) {
			b.Fatalf("error response: %.300s", body)
		}
		return
	}
}

// scaleSkills are the skills of the scale benchmarks: bodies of several
// skills, or of one skill loaded again and again.
func scaleInit(b *testing.B, c *rawClient, nSkills int) []string {
	b.Helper()
	root := b.TempDir()
	var list []HostSkill
	var names []string
	for i := range nSkills {
		name := fmt.Sprintf("skill-%02d", i)
		desc := fmt.Sprintf("Work on topic %d of the service: postgres, http and tests", i)
		p := writeSkill(b, root, name, desc, fmt.Sprintf("# %s\n\n## Steps\n\nDo the work.\n", name), nil)
		list = append(list, HostSkill{Name: name, Description: desc, Path: p})
		names = append(names, name)
	}
	p := InitializeParams{ProtocolVersion: Version, Cwd: root, AgentDir: filepath.Join(root, "agent"), Trusted: ptrTrue(), Skills: list}
	c.roundTrip(b, frameOf(b, 1, MethodInitialize, p))
	return names
}

// scaleLoads are n loads cycling over names, each followed by a file of
// its skill's folder, laid out one after the other in the request.
func scaleLoads(n int, names []string) []LoadRef {
	out := make([]LoadRef, 0, 2*n)
	off := int64(4000)
	for i := range n {
		s := names[i%len(names)]
		out = append(out,
			LoadRef{ID: fmt.Sprintf("call_%08d", i), Skill: s, Kind: lifecycle.ByTool, Size: 6000, Hash: fmt.Sprintf("%064x", i), Offset: off},
			LoadRef{ID: fmt.Sprintf("read_%08d", i), Skill: s, Kind: host.KindResource, Path: "/pack/" + s + "/references/notes.md", Size: 800, Offset: off + 6100})
		off += 7000
	}
	return out
}

var scaleSizes = []int{100, 1_000, 10_000}

// BenchmarkBeforeRequestLoads: one before_request, during a run, that
// brings n new loads (and a file read after each) to an empty session:
// of one skill loaded n times, or of 28 skills in turn. Each iteration
// first restores the empty session.
func BenchmarkBeforeRequestLoads(b *testing.B) {
	for _, k := range []int{1, 28} {
		for _, n := range scaleSizes {
			b.Run(fmt.Sprintf("skills=%d/loads=%d", k, n), func(b *testing.B) {
				c := startScale(b)
				names := scaleInit(b, c, k)
				loads := scaleLoads(n, names)
				reset := frameOf(b, 2, MethodSessionRestore, SessionRestoreParams{Records: []json.RawMessage{}})
				run := frameOf(b, 3, MethodRunStart, map[string]any{})
				req := frameOf(b, 4, MethodBeforeRequest, BeforeRequestParams{SincePreviousMs: 1200, Loads: loads, Total: int64(n)*7000 + 8000})
				for b.Loop() {
					c.roundTrip(b, reset)
					c.roundTrip(b, run)
					c.roundTrip(b, req)
				}
			})
		}
	}
}

// BenchmarkSessionRestoreLoads: one session/restore of the records of n
// loads, each with a file of its skill's folder, none archived (archiving
// off, or a resume before any archive): each load takes over the files
// of the copy before it.
func BenchmarkSessionRestoreLoads(b *testing.B) {
	for _, k := range []int{1, 28} {
		for _, n := range scaleSizes {
			b.Run(fmt.Sprintf("skills=%d/loads=%d", k, n), func(b *testing.B) {
				c := startScale(b)
				names := scaleInit(b, c, k)
				req := frameOf(b, 2, MethodSessionRestore, SessionRestoreParams{Records: scaleRecords(n, names)})
				for b.Loop() {
					c.roundTrip(b, req)
				}
			})
		}
	}
}

// scaleRecords are the records of n loads cycling over names, each with a
// file of its folder.
func scaleRecords(n int, names []string) []json.RawMessage {
	var out []json.RawMessage
	add := func(d lifecycle.Decision) {
		raw, _ := json.Marshal(d)
		out = append(out, raw)
	}
	for i := range n {
		s := names[i%len(names)]
		id := fmt.Sprintf("call_%08d", i)
		add(lifecycle.Decision{V: lifecycle.RecordVersion, Action: lifecycle.ActLoad, ID: id, Skill: s, Size: 6000, Kind: lifecycle.ByTool, Run: 1 + i/10})
		add(lifecycle.Decision{V: lifecycle.RecordVersion, Action: lifecycle.ActResource, ID: fmt.Sprintf("read_%08d", i), Skill: s, Of: id, Path: "/pack/" + s + "/references/notes.md", Size: 800})
	}
	return out
}

// promptText is about mib MiB of prose-like text: a small vocabulary and
// numbered words, as a pasted log or document would bring.
func promptText(mib int) string {
	words := []string{"write", "a", "postgres", "migration", "adding", "an", "index", "on", "the", "orders", "table", "with", "tests", "and", "Release", "notes"}
	var buf bytes.Buffer
	buf.Grow(mib<<20 + 16)
	for i := 0; buf.Len() < mib<<20; i++ {
		buf.WriteString(words[i%len(words)])
		if i%7 == 0 {
			buf.WriteString(strconv.Itoa(i % 5000))
		}
		buf.WriteByte(' ')
	}
	return buf.String()
}

// BenchmarkUserPromptSize: one user_prompt of 1, 10 and 60 MiB judged
// against three loaded bodies (one of them open to the judgement: the
// two most recent are kept by minKeep) after a first prompt set the
// topic.
func BenchmarkUserPromptSize(b *testing.B) {
	for _, mib := range []int{1, 10, 60} {
		b.Run(fmt.Sprintf("MiB=%d", mib), func(b *testing.B) {
			c := startScale(b)
			names := scaleInit(b, c, 4)
			c.roundTrip(b, frameOf(b, 2, MethodUserPrompt, UserPromptParams{Text: "write a postgres migration adding an index on orders"}))
			var loads []LoadRef
			for i, s := range names[:3] {
				loads = append(loads, LoadRef{ID: fmt.Sprintf("call_%d", i), Skill: s, Kind: lifecycle.ByTool, Size: 400})
			}
			c.roundTrip(b, frameOf(b, 3, MethodBeforeRequest, BeforeRequestParams{Loads: loads}))
			req := frameOf(b, 4, MethodUserPrompt, UserPromptParams{Text: promptText(mib)})
			// A prompt judged once sets the topic: the same prompt again
			// would be skipped as the same topic. The restore before each
			// prompt clears the topic and keeps the three bodies.
			var recs []json.RawMessage
			for _, l := range loads {
				raw, _ := json.Marshal(lifecycle.Decision{V: lifecycle.RecordVersion, Action: lifecycle.ActLoad, ID: l.ID, Skill: l.Skill, Size: l.Size, Kind: l.Kind, Run: 1})
				recs = append(recs, raw)
			}
			raw, _ := json.Marshal(lifecycle.Decision{V: lifecycle.RecordVersion, Action: lifecycle.ActTopic, Topic: []string{"orders", "postgres"}})
			recs = append(recs, raw)
			reset := frameOf(b, 5, MethodSessionRestore, SessionRestoreParams{Records: recs})
			b.SetBytes(int64(mib << 20))
			for b.Loop() {
				c.roundTrip(b, reset)
				c.roundTrip(b, req)
			}
		})
	}
}
