//go:build corpora

package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadCorpora reads the shared corpora's sessions (4 MB) with the
// reader ("hand": its own JSON parser, migration and tree included) and
// decodes the same lines with encoding/json into the fields the reader
// takes ("encoding-json", decoding alone). On 1 December 2026 (2 shared
// cores, medians of 3 to 6 runs) hand took 66 ms and encoding-json 139 ms.
// With encoding/json swapped into the reader, replay of these corpora was
// 38% slower (101 to 140 ms a run) and BenchmarkReplay's throughput 42%
// lower (39 to 23 MB/cpu-s).
func BenchmarkReadCorpora(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(repoRoot(b), "..", "shared", "corpora", "*-sessions", "*.jsonl"))
	if len(files) == 0 {
		b.Fatal("no session in ../shared/corpora (the corpora are read beside the repository)")
	}
	var data [][]byte
	size := 0
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
		size += len(d)
	}
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range data {
				if _, err := Read(bytes.NewReader(d), "f", nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, d := range data {
				for line := range bytes.Lines(d) {
					var l ejLine
					if json.Unmarshal(line, &l) == nil && l.Message != nil {
						n += len(l.Message.Content.blocks)
					}
				}
			}
			if n == 0 {
				b.Fatal("no content decoded")
			}
		}
	})
}

// ejLine and the types below hold what the reader takes from a line, for
// encoding/json; rawJSON and ejContent keep values as written, as the
// reader does.
type ejLine struct {
	Type, ID                            rawJSON
	ParentID                            string `json:"parentId"`
	Timestamp                           rawJSON
	Version                             *float64
	Cwd, ParentSession, Provider        string
	ModelID                             string `json:"modelId"`
	ThinkingLevel, Summary              string
	TokensBefore                        *float64
	FirstKeptEntryID                    string `json:"firstKeptEntryId"`
	FromID, CustomType, TargetID, Label string
	Name                                string
	Display                             bool
	Content, Data                       rawJSON
	Message                             *ejMessage
}

type ejMessage struct {
	Role, ToolCallID, ToolName, API, Provider, Model, StopReason string
	ErrorMessage, Command, Output, FullOutputPath, CustomType    string
	IsError, Cancelled, Truncated, ExcludeFromContext, Display   bool
	ExitCode, Timestamp                                          *float64
	Details                                                      struct{ LoadID rawJSON }
	Usage                                                        *struct {
		Input, Output, CacheRead, CacheWrite, TotalTokens float64
		Cost                                              *Cost
	}
	Content ejContent
}

type ejBlock struct {
	Type, Text, Thinking, ThinkingSignature, ID, Name, Data, MimeType string
	Redacted                                                          bool
	Arguments                                                         rawJSON
}

type rawJSON string

func (r *rawJSON) UnmarshalJSON(b []byte) error { *r = rawJSON(b); return nil }

type ejContent struct {
	raw    string
	blocks []ejBlock
}

func (c *ejContent) UnmarshalJSON(b []byte) error {
	c.raw = string(b)
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c.blocks = []ejBlock{{Type: "text", Text: s}}
	case '[':
		return json.Unmarshal(b, &c.blocks)
	}
	return nil
}
