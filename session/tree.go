package session

import (
	"fmt"
	"strconv"
)

// Session is one session file, migrated in memory to version 3.
type Session struct {
	Path    string
	Header  Header
	Entries []*Entry // file order
	// Diagnostics holds the first diagnostics met (Options.MaxDiagnostics),
	// DiagnosticCount counts them all: a file of junk lines costs a count,
	// not a diagnostic a line.
	Diagnostics     []Diagnostic
	DiagnosticCount int
	// NotSession says why the file was not read as a session: with
	// Options.RequireHeader, its first JSON line is not a session header
	// (nothing else is read then).
	NotSession string

	maxDiags int

	byID       map[string]*Entry
	children   map[string]int // id -> number of children
	cycleNoted map[*Entry]bool
}

func (s *Session) diag(line int, code, msg string) {
	s.DiagnosticCount++
	if s.full() {
		return
	}
	s.Diagnostics = append(s.Diagnostics, Diagnostic{File: s.Path, Line: line, Code: code, Message: msg})
}

// full reports whether no more diagnostics are kept (only counted).
func (s *Session) full() bool {
	max := s.maxDiags
	if max == 0 {
		max = DefaultMaxDiagnostics
	}
	return max > 0 && len(s.Diagnostics) >= max
}

// migrate brings entries to version 3 as Pi does on load: v1 entries get
// ids chained in file order and compactions' firstKeptEntryIndex (an index
// into the parsed lines, header = 0) becomes firstKeptEntryId; v2 renames
// the message role hookMessage to custom. Entries of a v2/v3 file that lack
// an id are chained to the entry before them, with a diagnostic.
func (s *Session) migrate(index []*Entry, pending []pendingCompaction) {
	v := s.Header.Version
	if v < 2 {
		prev := ""
		for _, e := range s.Entries {
			if e.ID == "" {
				e.ID = "L" + strconv.Itoa(e.Line)
				e.ParentID = prev
			}
			prev = e.ID
		}
	} else {
		prev := ""
		for _, e := range s.Entries {
			if e.ID == "" {
				s.diag(e.Line, CodeMissingID, "entry without id; chained to the entry before it")
				e.ID = "L" + strconv.Itoa(e.Line)
				e.ParentID = prev
			}
			prev = e.ID
		}
	}
	for _, p := range pending {
		if p.idx > 0 && p.idx < len(index) && index[p.idx] != nil {
			p.e.FirstKeptEntryID = index[p.idx].ID
		} else {
			s.diag(p.e.Line, CodeBadCompaction, fmt.Sprintf("firstKeptEntryIndex %d names no entry", p.idx))
		}
	}
	if v < 3 {
		for _, e := range s.Entries {
			if e.Message != nil && e.Message.Role == "hookMessage" {
				e.Message.Role = RoleCustom
			}
		}
	}
}

// index builds the id map (a later duplicate wins, as in Pi), reports
// dangling parents and counts children.
func (s *Session) index() {
	s.byID = make(map[string]*Entry, len(s.Entries))
	for _, e := range s.Entries {
		if old, dup := s.byID[e.ID]; dup {
			s.diag(e.Line, CodeDuplicateID, fmt.Sprintf("id %q already used on line %d; this entry replaces it", e.ID, old.Line))
		}
		s.byID[e.ID] = e
	}
	s.children = make(map[string]int, len(s.Entries))
	for _, e := range s.Entries {
		if e.ParentID == "" {
			continue
		}
		if _, ok := s.byID[e.ParentID]; !ok {
			s.diag(e.Line, CodeMissingParent, fmt.Sprintf("parentId %q names no entry; the entry starts a new root", e.ParentID))
			continue
		}
		s.children[e.ParentID]++
	}
	for _, e := range s.Entries {
		if e.Type == TypeCompaction && e.FirstKeptEntryID != "" {
			if _, ok := s.byID[e.FirstKeptEntryID]; !ok {
				s.diag(e.Line, CodeBadCompaction, fmt.Sprintf("firstKeptEntryId %q names no entry", e.FirstKeptEntryID))
			}
		}
	}
}

// Entry returns the entry with the given id, or nil.
func (s *Session) Entry(id string) *Entry { return s.byID[id] }

// Leaf returns the default leaf: the last entry of the file, as Pi does on
// load. Nil for a session without entries.
func (s *Session) Leaf() *Entry {
	if len(s.Entries) == 0 {
		return nil
	}
	return s.Entries[len(s.Entries)-1]
}

// Leaves returns every entry without children, in file order; the default
// leaf (the last entry) is always last.
func (s *Session) Leaves() []*Entry {
	var out []*Entry
	last := s.Leaf()
	for _, e := range s.Entries {
		if e == last || s.byID[e.ID] != e { // superseded duplicates are not leaves
			continue
		}
		if s.children[e.ID] == 0 {
			out = append(out, e)
		}
	}
	if last != nil {
		out = append(out, last)
	}
	return out
}

// Branch returns the entries from the root to leaf. A parentId cycle is
// cut where it closes (with a diagnostic); a missing parent ends the walk.
func (s *Session) Branch(leaf *Entry) []*Entry {
	if leaf == nil {
		return nil
	}
	seen := map[*Entry]bool{}
	var rev []*Entry
	for cur := leaf; cur != nil; {
		if seen[cur] {
			if s.cycleNoted == nil {
				s.cycleNoted = map[*Entry]bool{}
			}
			if s.cycleNoted[cur] {
				break
			}
			s.cycleNoted[cur] = true
			s.diag(cur.Line, CodeCycle, fmt.Sprintf("parentId chain loops back to %q; branch cut there", cur.ID))
			break
		}
		seen[cur] = true
		rev = append(rev, cur)
		if cur.ParentID == "" {
			break
		}
		cur = s.byID[cur.ParentID]
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
