//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Entry is one line of a Pi session file. Raw keeps the whole line.
type Entry struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	ParentID   *string         `json:"parentId"`
	Timestamp  string          `json:"timestamp"`
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data"`
	Message    *SessionMessage `json:"message"`
	Line       int             `json:"-"`
	Raw        json.RawMessage `json:"-"`
}

// SessionMessage is the message of a "message" entry (the fields tests use).
type SessionMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	IsError    bool            `json:"isError"`
	Provider   string          `json:"provider"`
	Model      string          `json:"model"`
	Usage      *SessionUsage   `json:"usage"`
	StopReason string          `json:"stopReason"`
}

// SessionUsage is an assistant message's usage as Pi recorded it.
type SessionUsage struct {
	Input       int `json:"input"`
	Output      int `json:"output"`
	CacheRead   int `json:"cacheRead"`
	CacheWrite  int `json:"cacheWrite"`
	TotalTokens int `json:"totalTokens"`
	Cost        struct {
		Input, Output, CacheRead, CacheWrite, Total float64
	} `json:"cost"`
}

// Text returns the message content as text (string, or the text blocks).
func (m *SessionMessage) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// Session is a parsed session file.
type Session struct {
	Path    string
	Header  map[string]any
	Entries []Entry
}

// ReadSession parses a session file: JSONL, the first line a "session"
// header. Errors name the file and line.
func ReadSession(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Session{Path: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if n == 1 {
			if err := json.Unmarshal(line, &s.Header); err != nil {
				return nil, fmt.Errorf("%s:1: header: %v", path, err)
			}
			if s.Header["type"] != "session" {
				return nil, fmt.Errorf("%s:1: first line has type %v, want \"session\"", path, s.Header["type"])
			}
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		e.Line = n
		e.Raw = append(json.RawMessage(nil), line...)
		s.Entries = append(s.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: empty session file", path)
	}
	return s, nil
}

// MustReadSession is ReadSession that fails the test on error.
func MustReadSession(t testing.TB, path string) *Session {
	t.Helper()
	if path == "" {
		t.Fatal("no session file was written")
	}
	s, err := ReadSession(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Custom returns the "custom" entries with the given customType.
func (s *Session) Custom(customType string) []Entry {
	var out []Entry
	for _, e := range s.Entries {
		if e.Type == "custom" && e.CustomType == customType {
			out = append(out, e)
		}
	}
	return out
}

// Messages returns the message entries with the given role ("" for all).
func (s *Session) Messages(role string) []*SessionMessage {
	var out []*SessionMessage
	for _, e := range s.Entries {
		if e.Type == "message" && e.Message != nil && (role == "" || e.Message.Role == role) {
			out = append(out, e.Message)
		}
	}
	return out
}

// CheckTree verifies the entry ids are unique and every parentId names an
// earlier entry.
func (s *Session) CheckTree() error {
	seen := map[string]bool{}
	for _, e := range s.Entries {
		if e.ID == "" {
			return fmt.Errorf("%s:%d: entry without id", s.Path, e.Line)
		}
		if seen[e.ID] {
			return fmt.Errorf("%s:%d: duplicate id %s", s.Path, e.Line, e.ID)
		}
		if e.ParentID != nil && !seen[*e.ParentID] {
			return fmt.Errorf("%s:%d: parentId %s names no earlier entry", s.Path, e.Line, *e.ParentID)
		}
		seen[e.ID] = true
	}
	return nil
}

// FindToolResult returns the first tool message, in any request, whose text
// contains substr, with the request it was found in.
func FindToolResult(reqs []*Request, substr string) (*Request, Message, bool) {
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m.Role == "tool" && strings.Contains(m.Text(), substr) {
				return r, m, true
			}
		}
	}
	return nil, Message{}, false
}

// CountInBody counts the occurrences of substr in the request's raw body as
// Pi serialised it (JSON-escaped), and CountInMessages those in the decoded
// message texts.
func CountInBody(r *Request, substr string) int { return strings.Count(string(r.Body), substr) }

// CountInMessages counts substr in the decoded text of every message.
func CountInMessages(r *Request, substr string) int {
	n := 0
	for _, m := range r.Messages {
		n += strings.Count(m.Text(), substr)
	}
	return n
}

var skillLocation = regexp.MustCompile(`<skill>\s*<name>([^<]*)</name>\s*<description>[^<]*</description>\s*<location>([^<]*)</location>\s*</skill>`)

// ListedSkills parses the <available_skills> block of a system prompt into
// name → SKILL.md location (XML entities are not decoded). Pi's own listing
// has locations; the bridge's lists names and descriptions only (see
// ListedNames).
func ListedSkills(systemPrompt string) map[string]string {
	out := map[string]string{}
	for _, m := range skillLocation.FindAllStringSubmatch(systemPrompt, -1) {
		out[m[1]] = m[2]
	}
	return out
}

var skillName = regexp.MustCompile(`<skill>\s*<name>([^<]*)</name>`)

// ListedNames returns the names in the <available_skills> block of a system
// prompt, in order.
func ListedNames(systemPrompt string) []string {
	var out []string
	for _, m := range skillName.FindAllStringSubmatch(systemPrompt, -1) {
		out = append(out, m[1])
	}
	return out
}

// workingDir matches the working directory in Pi's system prompt: a <cwd>
// block in Pi 1.6, a "Current working directory:" line in Pi 0.73.
var workingDir = regexp.MustCompile(`(?:<cwd>\s*|Current working directory: )([^\n<]+)`)

// ProjectSkillFile is the SKILL.md path of a project skill written by
// AddSkills, found from the working directory Pi states in its system
// prompt: the bridge's listing names no locations, so a script that must
// read a SKILL.md directly (to test the read guard) finds it this way.
func ProjectSkillFile(systemPrompt, name string) string {
	m := workingDir.FindStringSubmatch(systemPrompt)
	if m == nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(m[1]), SkillDir, name, "SKILL.md")
}
