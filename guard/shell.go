package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// This file decides whether a bash command prints the whole of a known
// SKILL.md (the rule of docs/protocol.md, tool_call). The command is
// parsed as bash (mvdan.cc/sh/v3/syntax); a command that does not parse
// is allowed. Its output, what Pi's bash tool hands the model (stdout and
// stderr), is followed as a stream of lines, each known by the file and
// line it came from: every statement of a list adds its output, a pipe
// feeds one command's output to the next, a redirection to a file drops
// it. The commands that print or cut their input are modelled on the
// lines of the SKILL.md (cat and its kin, head, tail, sed, awk, grep,
// echo of a command substitution, an interpreter's one-liner that reads
// the file whole); the output of any other command is unknown, and holds
// no line of a SKILL.md. The command prints a SKILL.md whole when its
// output holds every line of it with text in it; a part (head -30, sed -n
// 1,40p, tail -n 20, grep PATTERN) is served, as a ranged read is.

// line is one line of a stream: line n of the SKILL.md files[f], or, with
// f < 0, any number of lines of something else.
type line struct {
	f, n int
}

// skillText is a SKILL.md the command reads: its lines, split as Pi's
// read tool splits them.
type skillText struct {
	skill Skill
	lines []string
}

// shell evaluates one command.
type shell struct {
	cwd    string
	lookup Lookup
	files  []skillText
	byPath map[string]int // resolved operand -> index in files, -1: not a SKILL.md
	steps  int            // statements evaluated, bounded by maxSteps
	hdoc   string         // the here-document of the statement being run
	// produced counts the lines of SKILL.md files streamed, bounded by
	// maxLines.
	produced int
}

// maxSteps bounds the statements and commands evaluated for one command
// line; past it the rest prints nothing known (the guard fails open).
const maxSteps = 10000

// maxLines bounds the lines of one stream; a longer one is unknown.
const maxLines = 1 << 20

// maxGlobMatches bounds the files one glob operand expands to.
const maxGlobMatches = 512

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// printsSkillFile reports whether a bash command prints the whole of a
// known SKILL.md, and which one (the first whose text is printed whole).
func printsSkillFile(command, cwd string, lookup Lookup) (Skill, bool) {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(command), "")
	parsers.Put(p)
	if err != nil {
		return Skill{}, false
	}
	sh := &shell{cwd: cwd, lookup: lookup, byPath: map[string]int{}}
	out := sh.stmts(f.Stmts, nil)
	if len(sh.files) == 0 {
		return Skill{}, false
	}
	seen := make([][]bool, len(sh.files))
	for _, l := range out {
		if l.f >= 0 {
			if seen[l.f] == nil {
				seen[l.f] = make([]bool, len(sh.files[l.f].lines))
			}
			seen[l.f][l.n] = true
		}
	}
	for _, l := range out {
		if l.f < 0 || seen[l.f] == nil {
			continue
		}
		whole, any := true, false
		for i, t := range sh.files[l.f].lines {
			if strings.TrimSpace(t) != "" {
				any = true
				whole = whole && seen[l.f][i]
			}
		}
		if whole && any {
			return sh.files[l.f].skill, true
		}
		seen[l.f] = nil
	}
	return Skill{}, false
}

// stmts is the output of a list of statements run in order.
func (sh *shell) stmts(list []*syntax.Stmt, stdin []line) []line {
	var out []line
	for _, st := range list {
		out = append(out, sh.stmt(st, stdin)...)
	}
	return out
}

var unknown = []line{{f: -1}}

// stmt is the output of one statement reading stdin.
func (sh *shell) stmt(st *syntax.Stmt, stdin []line) []line {
	if st == nil {
		return nil
	}
	sh.steps++
	if sh.steps > maxSteps {
		return unknown
	}
	discard := false
	for _, r := range st.Redirs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.RdrIn:
			if fd == "" || fd == "0" {
				stdin = sh.operand(r.Word)
			}
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.RdrInOut, syntax.DplIn:
			if fd == "" || fd == "0" {
				stdin = unknown
				if w := r.Hdoc; w != nil {
					sh.hdoc = literalOr(w)
				} else if r.Op == syntax.WordHdoc {
					sh.hdoc = literalOr(r.Word)
				}
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob:
			if fd == "" || fd == "1" || fd == "2" {
				// Pi's bash tool shows stdout and stderr: only a file
				// takes the output away (or both, with 2> and >).
				discard = discard || fd != "2"
			}
		case syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
			discard = true
		case syntax.DplOut:
			// >&2, 2>&1: still shown.
		}
	}
	out := sh.command(st, stdin)
	sh.hdoc = ""
	if discard {
		return nil
	}
	if len(out) > maxLines {
		return unknown
	}
	return out
}

// command is the output of a statement's command.
func (sh *shell) command(st *syntax.Stmt, stdin []line) []line {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return sh.call(c, stdin)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			return sh.stmt(c.Y, sh.stmt(c.X, stdin))
		default: // && and ||: either may run both
			return append(sh.stmt(c.X, stdin), sh.stmt(c.Y, stdin)...)
		}
	case *syntax.Subshell:
		cwd := sh.cwd
		out := sh.stmts(c.Stmts, stdin)
		sh.cwd = cwd
		return out
	case *syntax.Block:
		return sh.stmts(c.Stmts, stdin)
	case *syntax.IfClause:
		var out []line
		for ; c != nil; c = c.Else {
			out = append(out, sh.stmts(c.Cond, stdin)...)
			out = append(out, sh.stmts(c.Then, stdin)...)
		}
		return out
	case *syntax.WhileClause:
		return append(sh.stmts(c.Cond, stdin), sh.stmts(c.Do, stdin)...)
	case *syntax.ForClause:
		return sh.stmts(c.Do, stdin)
	case *syntax.TimeClause:
		return sh.stmt(c.Stmt, stdin)
	case nil:
		return nil
	}
	return unknown
}

// call is the output of a simple command.
func (sh *shell) call(c *syntax.CallExpr, stdin []line) []line {
	if len(c.Args) == 0 {
		return nil
	}
	name, ok := literal(c.Args[0])
	if !ok {
		return unknown
	}
	args := c.Args[1:]
	switch filepath.Base(name) {
	case "cd":
		if len(args) == 0 {
			if home, err := os.UserHomeDir(); err == nil {
				sh.cwd = home
			}
		} else if dir, ok := literal(args[0]); ok && dir != "-" {
			sh.cwd = resolveHostPath(dir, sh.cwd)
		}
		return nil
	case "command", "builtin", "exec", "nice", "nohup", "time", "stdbuf", "sudo", "env":
		// A prefix that runs the rest as a command.
		for len(args) > 0 {
			w, ok := literal(args[0])
			if !ok || !(strings.HasPrefix(w, "-") || strings.Contains(w, "=")) {
				break
			}
			args = args[1:]
		}
		return sh.call(&syntax.CallExpr{Args: args}, stdin)
	case "cat", "tac", "nl", "less", "more", "bat", "batcat", "pr":
		return sh.printer(name, args, stdin)
	case "tee":
		return stdin
	case "head", "tail":
		return sh.headTail(filepath.Base(name) == "head", args, stdin)
	case "sed":
		return sh.sed(args, stdin)
	case "awk", "gawk", "mawk", "nawk":
		return sh.awk(args, stdin)
	case "grep", "egrep", "fgrep", "rg":
		return sh.grep(filepath.Base(name), args, stdin)
	case "echo", "printf":
		var out []line
		for _, w := range args {
			out = append(out, sh.substitutions(w.Parts)...)
		}
		if len(out) == 0 {
			return unknown
		}
		return out
	case "python", "python3", "node", "ruby", "perl", "bun", "deno", "php":
		return sh.interpreter(filepath.Base(name), c.Args, stdin)
	}
	return unknown
}

// substitutions is the output of the command substitutions in parts (an
// argument of echo or printf prints it).
func (sh *shell) substitutions(parts []syntax.WordPart) []line {
	var out []line
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.CmdSubst:
			out = append(out, sh.stmts(p.Stmts, nil)...)
		case *syntax.DblQuoted:
			out = append(out, sh.substitutions(p.Parts)...)
		}
	}
	return out
}

// operand is the stream of one file operand: a known SKILL.md's lines,
// else unknown (each file a glob matches, in order).
func (sh *shell) operand(w *syntax.Word) []line {
	if w == nil {
		return unknown
	}
	pattern, glob, ok := globWord(w)
	if !ok {
		return unknown
	}
	if !glob {
		return sh.file(resolveHostPath(pattern, sh.cwd))
	}
	matches := sh.glob(pattern)
	if len(matches) == 0 {
		return unknown
	}
	var out []line
	for _, m := range matches {
		out = append(out, sh.file(m)...)
	}
	return out
}

// glob expands pattern as the shell does, for a pattern with at most
// three elements holding wildcards, to at most maxGlobMatches files.
func (sh *shell) glob(pattern string) []string {
	p := resolveHostPath(pattern, sh.cwd)
	wild := 0
	for _, el := range strings.Split(p, "/") {
		if strings.ContainsAny(el, "*?[") {
			wild++
		}
	}
	if wild > 3 {
		return nil
	}
	m, err := filepath.Glob(p)
	if err != nil {
		return nil
	}
	return m[:min(len(m), maxGlobMatches)]
}

// file is the stream of the file at absolute path p.
func (sh *shell) file(p string) []line {
	i, seen := sh.byPath[p]
	if !seen {
		i = -1
		if s, ok := sh.lookup(p); ok {
			if data, err := skills.ReadFile(p); err == nil {
				i = len(sh.files)
				sh.files = append(sh.files, skillText{skill: s, lines: strings.Split(string(data), "\n")})
			}
		}
		sh.byPath[p] = i
	}
	if i < 0 || sh.produced > maxLines {
		return unknown
	}
	sh.produced += len(sh.files[i].lines)
	out := make([]line, len(sh.files[i].lines))
	for n := range out {
		out[n] = line{i, n}
	}
	return out
}

// inputs is what a filter reads: its file operands in order ("-" is
// stdin), or stdin without any.
func (sh *shell) inputs(operands []*syntax.Word, stdin []line) [][]line {
	if len(operands) == 0 {
		return [][]line{stdin}
	}
	var ins [][]line
	for _, w := range operands {
		if s, ok := literal(w); ok && s == "-" {
			ins = append(ins, stdin)
			continue
		}
		ins = append(ins, sh.operand(w))
	}
	return ins
}

// text is the text of line l (empty for an unknown run).
func (sh *shell) text(l line) string {
	if l.f < 0 {
		return ""
	}
	return sh.files[l.f].lines[l.n]
}

// options splits args into options and operands: takesArg lists the
// options that take the next word as their value; "--" ends the options.
// Each option comes back with its value, if any.
type option struct{ name, value string }

func splitArgs(args []*syntax.Word, takesArg map[string]bool) (opts []option, operands []*syntax.Word, ok bool) {
	for i := 0; i < len(args); i++ {
		a, lit := literal(args[i])
		if !lit || a == "-" || !strings.HasPrefix(a, "-") {
			operands = append(operands, args[i])
			continue
		}
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if name, value, eq := strings.Cut(a, "="); eq && strings.HasPrefix(a, "--") {
			opts = append(opts, option{name, value})
			continue
		}
		if takesArg[a] {
			if i+1 >= len(args) {
				return nil, nil, false
			}
			v, lit := literal(args[i+1])
			if !lit {
				return nil, nil, false
			}
			opts = append(opts, option{a, v})
			i++
			continue
		}
		opts = append(opts, option{a, ""})
	}
	return opts, operands, true
}

// printer is cat and the commands that print their input whole (with
// numbers, markers or a pager around it); bat's line ranges cut it.
func (sh *shell) printer(name string, args []*syntax.Word, stdin []line) []line {
	opts, operands, ok := splitArgs(args, map[string]bool{
		"-b": name == "nl", "-s": name == "nl", "-w": name == "nl", "-v": name == "nl", "-i": name == "nl",
		"-l": true, "--language": true, "-r": true, "--line-range": true, "-H": true, "--highlight-line": true,
		"--style": true, "--theme": true, "--paging": true, "--color": true, "--wrap": true,
	})
	if !ok {
		return unknown
	}
	var out []line
	for _, in := range sh.inputs(operands, stdin) {
		cut := in
		for _, o := range opts {
			if o.name == "-r" || o.name == "--line-range" {
				cut = lineRange(in, o.value)
			}
		}
		out = append(out, cut...)
	}
	return out
}

// lineRange is bat's --line-range A:B (1-based, either side optional) of
// in; a range it cannot read keeps nothing known.
func lineRange(in []line, r string) []line {
	a, b, colon := strings.Cut(r, ":")
	from, to := 1, len(in)
	var err error
	if a != "" {
		if from, err = strconv.Atoi(a); err != nil {
			return unknown
		}
	}
	if !colon {
		to = from
	} else if b != "" {
		if to, err = strconv.Atoi(b); err != nil {
			return unknown
		}
	}
	return take(in, from-1, to)
}

// take is in[from:to], clamped; an unknown run before from ends it (its
// length is unknown, so nothing after it is known to be in range).
func take(in []line, from, to int) []line {
	from = max(from, 0)
	for i := 0; i < len(in) && i < to; i++ {
		if in[i].f < 0 && i < from {
			return unknown
		}
	}
	to = min(to, len(in))
	if from >= to {
		return nil
	}
	return in[from:to]
}

// headTail is head or tail of each input: -n N, -N, -n -N (head: all but
// the last N), -n +N (tail: from line N), -c N (bytes).
func (sh *shell) headTail(head bool, args []*syntax.Word, stdin []line) []line {
	opts, operands, ok := splitArgs(args, map[string]bool{"-n": true, "-c": true, "--lines": true, "--bytes": true, "-s": true, "--pid": true})
	if !ok {
		return unknown
	}
	count, bytes := "10", false
	for _, o := range opts {
		switch {
		case o.name == "-n" || o.name == "--lines":
			count, bytes = o.value, false
		case o.name == "-c" || o.name == "--bytes":
			count, bytes = o.value, true
		case strings.HasPrefix(o.name, "-n") && len(o.name) > 2:
			count, bytes = o.name[2:], false
		case strings.HasPrefix(o.name, "-c") && len(o.name) > 2:
			count, bytes = o.name[2:], true
		case len(o.name) > 1 && o.name[1] >= '0' && o.name[1] <= '9':
			count = strings.TrimRight(o.name[1:], "lfqv")
		}
	}
	// tail +N (the old form) is an operand here.
	if !head && len(operands) > 0 {
		if s, ok := literal(operands[0]); ok && strings.HasPrefix(s, "+") {
			if _, err := strconv.Atoi(s[1:]); err == nil {
				count, operands = s, operands[1:]
			}
		}
	}
	var out []line
	for _, in := range sh.inputs(operands, stdin) {
		n, err := strconv.Atoi(strings.TrimPrefix(count, "+"))
		if err != nil {
			return unknown
		}
		if bytes {
			n = sh.linesInBytes(in, head, n)
		}
		switch {
		case head && strings.HasPrefix(count, "-"):
			out = append(out, take(in, 0, len(in)+n)...)
		case head:
			out = append(out, take(in, 0, n)...)
		case strings.HasPrefix(count, "+"):
			out = append(out, take(in, n-1, len(in))...)
		default:
			n = min(max(n, 0), len(in))
			tail := in[len(in)-n:]
			for i := len(tail) - 1; i >= 0; i-- {
				if tail[i].f < 0 {
					tail = tail[i:]
					break
				}
			}
			out = append(out, tail...)
		}
	}
	return out
}

// linesInBytes is how many whole lines of in, from its start (head) or
// its end, the first (last) n bytes hold; a line cut short counts.
func (sh *shell) linesInBytes(in []line, head bool, n int) int {
	if n < 0 {
		return n
	}
	total := 0
	for i := range in {
		l := in[i]
		if !head {
			l = in[len(in)-1-i]
		}
		if total >= n {
			return i
		}
		if l.f < 0 {
			return i + 1
		}
		total += len(sh.text(l)) + 1
	}
	return len(in)
}
