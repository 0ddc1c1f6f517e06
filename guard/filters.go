package guard

import (
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The filters the shell model (shell.go) knows: sed, awk, grep and the
// interpreters' one-liners, and the words of a command.

// sedCmd is one command of a sed script: an optional address or range,
// optionally negated, and its letter ('s' also stands for y; print is
// true for an s with the p flag).
type sedCmd struct {
	a1, a2 *sedAddr
	not    bool
	letter byte
	print  bool
	active bool // inside its range
}

// sedAddr is a line number (last: $), a GNU first~step, or a regexp.
type sedAddr struct {
	n, step int
	last    bool
	re      *regexp.Regexp
}

// sed runs a sed script over the input as sed does (-n, p, d, q, Q, s, y,
// =, l, with line, $ and /regexp/ addresses and ranges); a script it
// cannot read, -i, -f or -z prints nothing known.
func (sh *shell) sed(args []*syntax.Word, stdin []line) []line {
	opts, operands, ok := splitArgs(args, map[string]bool{"-e": true, "-f": true, "-l": true, "--expression": true, "--file": true})
	if !ok {
		return unknown
	}
	quiet, extended := false, false
	var scripts []string
	for _, o := range opts {
		switch {
		case o.name == "-n" || o.name == "--quiet" || o.name == "--silent":
			quiet = true
		case o.name == "-E" || o.name == "-r" || o.name == "--regexp-extended":
			extended = true
		case o.name == "-e" || o.name == "--expression":
			scripts = append(scripts, o.value)
		case o.name == "-s" || o.name == "-u" || o.name == "--posix" || o.name == "--debug" || o.name == "--sandbox" || o.name == "-l":
		case strings.HasPrefix(o.name, "--"):
			return unknown // -i, -f, -z and the rest
		default:
			for _, c := range o.name[1:] {
				switch c {
				case 'n':
					quiet = true
				case 'E', 'r':
					extended = true
				case 's', 'u':
				default:
					return unknown
				}
			}
		}
	}
	if len(scripts) == 0 {
		if len(operands) == 0 {
			return unknown
		}
		s, ok := literal(operands[0])
		if !ok {
			return unknown
		}
		scripts, operands = []string{s}, operands[1:]
	}
	cmds, ok := parseSed(strings.Join(scripts, "\n"), extended)
	if !ok {
		return unknown
	}
	var in []line
	for _, i := range sh.inputs(operands, stdin) {
		in = append(in, i...)
	}
	var out []line
	ln := 0
	for i, l := range in {
		if l.f < 0 {
			ln += 1 << 30 // any number of lines
			out = append(out, l)
			continue
		}
		ln++
		last := i == len(in)-1
		text := sh.text(l)
		deleted, quit := false, false
	cycle:
		for k := range cmds {
			c := &cmds[k]
			if c.matches(ln, last, text) == c.not {
				continue
			}
			switch c.letter {
			case 'p', 'l':
				out = append(out, l)
			case 's':
				if c.print {
					out = append(out, l)
				}
			case 'd':
				deleted = true
				break cycle
			case 'q':
				quit = true
				break cycle
			case 'Q':
				quit, deleted = true, true
				break cycle
			}
		}
		if !deleted && !quiet {
			out = append(out, l)
		}
		if len(out) > maxLines {
			return unknown
		}
		if quit {
			break
		}
	}
	return out
}

// matches reports whether the command's address selects line ln (its
// range state moves on).
func (c *sedCmd) matches(ln int, last bool, text string) bool {
	if c.a1 == nil {
		return true
	}
	if c.a2 == nil {
		return c.a1.match(ln, last, text)
	}
	if c.active {
		switch {
		case c.a2.re != nil:
			c.active = !c.a2.re.MatchString(text)
		case c.a2.last:
			c.active = !last
		default:
			c.active = ln < c.a2.n
		}
		return true
	}
	if !c.a1.match(ln, last, text) {
		return false
	}
	switch {
	case c.a2.re != nil:
		c.active = true
	case c.a2.last:
		c.active = !last
	default:
		c.active = ln < c.a2.n
	}
	return true
}

func (a *sedAddr) match(ln int, last bool, text string) bool {
	switch {
	case a.re != nil:
		return a.re.MatchString(text)
	case a.last:
		return last
	case a.step > 0:
		return ln >= a.n && (ln-a.n)%a.step == 0
	}
	return ln == a.n
}

// parseSed reads a script of the commands sed's model knows.
func parseSed(s string, extended bool) ([]sedCmd, bool) {
	var cmds []sedCmd
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';' || s[i] == '\n') {
			i++
		}
	}
	addr := func() (*sedAddr, bool) {
		switch {
		case i < len(s) && s[i] == '$':
			i++
			return &sedAddr{last: true}, true
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			j := i
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			n, _ := strconv.Atoi(s[j:i])
			a := &sedAddr{n: n}
			if i < len(s) && s[i] == '~' {
				i++
				k := i
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++
				}
				a.step, _ = strconv.Atoi(s[k:i])
			}
			return a, true
		case i < len(s) && s[i] == '/':
			re, ok := delimited(s, &i, '/')
			if !ok {
				return nil, false
			}
			r, err := posixRegexp(re, extended, i < len(s) && s[i] == 'I')
			if err != nil {
				return nil, false
			}
			if i < len(s) && s[i] == 'I' {
				i++
			}
			return &sedAddr{re: r}, true
		}
		return nil, true
	}
	for skip(); i < len(s); skip() {
		var c sedCmd
		var ok bool
		if c.a1, ok = addr(); !ok {
			return nil, false
		}
		if c.a1 != nil && i < len(s) && s[i] == ',' {
			i++
			if c.a2, ok = addr(); !ok || c.a2 == nil || c.a2.step > 0 {
				return nil, false
			}
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] == '!' {
			c.not = true
			i++
		}
		if i >= len(s) {
			return nil, false
		}
		c.letter = s[i]
		i++
		switch c.letter {
		case 'p', 'd', '=', 'l':
		case 'q', 'Q':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++ // exit code
			}
		case 's', 'y':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return nil, false
			}
			d := s[i]
			i++
			if _, ok := delimitedRest(s, &i, d); !ok {
				return nil, false
			}
			if _, ok := delimitedRest(s, &i, d); !ok {
				return nil, false
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch s[i] {
				case 'p':
					c.print = true
				case 'w', 'e':
					return nil, false // writes a file, runs a command
				}
				i++
			}
			c.letter = 's'
		default:
			return nil, false
		}
		cmds = append(cmds, c)
	}
	return cmds, true
}

// delimited reads a d-delimited field starting at s[*i] == d.
func delimited(s string, i *int, d byte) (string, bool) {
	*i++
	return delimitedRest(s, i, d)
}

// delimitedRest reads up to the next unescaped d, past it.
func delimitedRest(s string, i *int, d byte) (string, bool) {
	var b strings.Builder
	for ; *i < len(s); *i++ {
		switch s[*i] {
		case '\\':
			if *i+1 < len(s) && s[*i+1] == d {
				b.WriteByte(d)
				*i++
				continue
			}
			b.WriteByte('\\')
			if *i+1 < len(s) {
				*i++
				b.WriteByte(s[*i])
			}
		case d:
			*i++
			return b.String(), true
		default:
			b.WriteByte(s[*i])
		}
	}
	return "", false
}

// posixRegexp compiles a POSIX basic (or, extended, an extended) regular
// expression as Go's regexp reads it.
func posixRegexp(re string, extended, fold bool) (*regexp.Regexp, error) {
	t := posixSyntax(re, extended)
	if fold {
		t = "(?i)" + t
	}
	return regexp.Compile(t)
}

// posixSyntax is a POSIX regular expression in Go's syntax.
func posixSyntax(re string, extended bool) string {
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\' && i+1 < len(re):
			i++
			switch n := re[i]; {
			case n == '<' || n == '>':
				b.WriteString(`\b`)
			case !extended && strings.IndexByte("(){}|+?", n) >= 0:
				b.WriteByte(n)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[':
			// A bracket expression runs to its "]" (one first is literal).
			j := i + 1
			if j < len(re) && re[j] == '^' {
				j++
			}
			if j < len(re) && re[j] == ']' {
				j++
			}
			for j < len(re) && re[j] != ']' {
				if re[j] == '[' && j+1 < len(re) && re[j+1] == ':' {
					if k := strings.Index(re[j:], ":]"); k >= 0 {
						j += k + 2
						continue
					}
				}
				j++
			}
			if j >= len(re) {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(re[i : j+1])
			i = j
		case !extended && strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// awkIdentity matches the awk programs that print every line, or every
// line with text: a condition among 1, NF, length and an empty regexp,
// or none, with no action or one that prints $0 (print, print $0, and
// the same with other fields such as NR around it).
var awkIdentity = regexp.MustCompile(`^\s*(1|NF|NF\s*>\s*0|length|//)?\s*(\{\s*print(f?\s*\(?[^;{}]*\$0[^;{}]*|\s*)\)?\s*;?\s*\})?\s*;?\s*$`)

// awk prints its input when the program is one of awkIdentity's; any
// other program prints nothing known.
func (sh *shell) awk(args []*syntax.Word, stdin []line) []line {
	opts, operands, ok := splitArgs(args, map[string]bool{"-F": true, "-v": true, "-f": true, "--field-separator": true, "--assign": true})
	if !ok || len(operands) == 0 {
		return unknown
	}
	for _, o := range opts {
		if o.name == "-f" || o.name == "--file" {
			return unknown
		}
	}
	prog, ok := literal(operands[0])
	if !ok || strings.TrimSpace(prog) == "" || !awkIdentity.MatchString(prog) {
		return unknown
	}
	// awk assignments among the operands (var=value) are not files.
	var files []*syntax.Word
	for _, w := range operands[1:] {
		if s, ok := literal(w); ok && strings.Contains(s, "=") && !strings.Contains(s, "/") {
			continue
		}
		files = append(files, w)
	}
	var out []line
	for _, in := range sh.inputs(files, stdin) {
		out = append(out, in...)
	}
	return out
}

// grep prints the lines of its input its patterns select (grep, egrep,
// fgrep and rg: -v, -i, -E, -F, -w, -x, -e, -m and context); a listing
// (-c, -l, -L, -q, -o) or a pattern Go cannot read prints nothing known.
func (sh *shell) grep(name string, args []*syntax.Word, stdin []line) []line {
	takes := map[string]bool{"-e": true, "-f": true, "-m": true, "-A": true, "-B": true, "-C": true, "--regexp": true, "--file": true,
		"--max-count": true, "--context": true, "--after-context": true, "--before-context": true, "-d": true, "-D": true, "--include": true, "--exclude": true}
	if name == "rg" {
		for _, o := range []string{"-g", "--glob", "-t", "--type", "-T", "--type-not", "-j", "--threads", "-M", "--max-columns", "-r", "--replace"} {
			takes[o] = true
		}
	}
	opts, operands, ok := splitArgs(args, takes)
	if !ok {
		return unknown
	}
	invert, fold, fixed, word, whole := false, false, name == "fgrep", false, false
	extended := name == "egrep" || name == "rg"
	maxCount, before, after := -1, 0, 0
	var patterns []string
	flag := func(c byte) bool {
		switch c {
		case 'v':
			invert = true
		case 'i', 'y':
			fold = true
		case 'E', 'P':
			extended = true
		case 'F':
			fixed = true
		case 'G':
			extended = false
		case 'w':
			word = true
		case 'x':
			whole = true
		case 'c', 'l', 'L', 'q', 'o', 'f':
			return false
		}
		return true
	}
	for _, o := range opts {
		switch o.name {
		case "-e", "--regexp":
			patterns = append(patterns, o.value)
		case "-m", "--max-count":
			n, err := strconv.Atoi(o.value)
			if err != nil {
				return unknown
			}
			maxCount = n
		case "-A", "--after-context", "-B", "--before-context", "-C", "--context":
			n, err := strconv.Atoi(o.value)
			if err != nil {
				return unknown
			}
			if o.name != "-A" && o.name != "--after-context" {
				before = n
			}
			if o.name != "-B" && o.name != "--before-context" {
				after = n
			}
		case "--invert-match":
			invert = true
		case "--ignore-case":
			fold = true
		case "--fixed-strings":
			fixed = true
		case "--extended-regexp":
			extended = true
		case "--count", "--files-with-matches", "--files-without-match", "--quiet", "--silent", "--only-matching", "-f", "--file", "--files":
			return unknown
		default:
			if !strings.HasPrefix(o.name, "--") && !takes[o.name] {
				for i := 1; i < len(o.name); i++ {
					if !flag(o.name[i]) {
						return unknown
					}
				}
			}
		}
	}
	if len(patterns) == 0 {
		if len(operands) == 0 {
			return unknown
		}
		p, ok := literal(operands[0])
		if !ok {
			return unknown
		}
		patterns, operands = []string{p}, operands[1:]
	}
	var res []*regexp.Regexp
	for _, p := range patterns {
		for _, alt := range strings.Split(p, "\n") {
			if fixed {
				alt = regexp.QuoteMeta(alt)
			} else if !extended {
				alt = posixSyntax(alt, false)
			}
			if word {
				alt = `\b(?:` + alt + `)\b`
			}
			if whole {
				alt = `^(?:` + alt + `)$`
			}
			if fold {
				alt = "(?i)" + alt
			}
			r, err := regexp.Compile(alt)
			if err != nil {
				return unknown
			}
			res = append(res, r)
		}
	}
	var out []line
	for _, in := range sh.inputs(operands, stdin) {
		pick := make([]bool, len(in))
		matched := 0
		for i, l := range in {
			if l.f < 0 {
				out = append(out, l)
				continue
			}
			if maxCount >= 0 && matched >= maxCount {
				break
			}
			hit := false
			for _, r := range res {
				if r.MatchString(sh.text(l)) {
					hit = true
					break
				}
			}
			if hit != invert {
				matched++
				for j := max(i-before, 0); j <= min(i+after, len(in)-1); j++ {
					pick[j] = true
				}
			}
		}
		for i, l := range in {
			if pick[i] && l.f >= 0 {
				out = append(out, l)
			}
		}
	}
	return out
}

// skillPathInCode finds a quoted path ending in SKILL.md in a script.
var skillPathInCode = regexp.MustCompile("[\"'`]([^\"'`\n]*SKILL\\.md)[\"'`]")

// wholeRead and partRead are what a one-liner does with a file it opens:
// read it whole and print it, or only a part of it.
var (
	wholeRead = regexp.MustCompile(`\.read\(\s*\)|read_text\(|readFileSync\(|readTextFile|File\.read\(|IO\.read\(|file_get_contents\(|\.text\(\)|readlines\(|<\$?\w*>|slurp`)
	partRead  = regexp.MustCompile(`\)\s*\[|\.slice\(|\.substr(ing)?\(|\.split\(|\.read\(\s*\d|readline\(\)|\.head\(|\[\s*:`)
	prints    = regexp.MustCompile(`\bprint|console\.log|\bputs\b|\bwrite\(|\becho\b|process\.stdout|\bp\s`)
)

// interpreter is python, node, ruby, perl and the like. A one-liner (-c,
// -e, -p, a here-document) naming a known SKILL.md that reads it whole
// and prints prints it; perl -p or -n with print over file operands is
// a filter that prints its input.
func (sh *shell) interpreter(name string, words []*syntax.Word, stdin []line) []line {
	code, haveCode := "", false
	var rest []*syntax.Word
	perlP, perlN := false, false
	for i := 1; i < len(words) && !haveCode; i++ {
		a, ok := literal(words[i])
		if !ok {
			return unknown
		}
		flags, isOpt := strings.CutPrefix(a, "-")
		if !isOpt || a == "-" {
			if name == "deno" && a == "eval" && i+1 < len(words) {
				code, haveCode = literalOr(words[i+1]), true
			}
			break // a script file, or stdin
		}
		takesCode := false
		switch name {
		case "python", "python3":
			takesCode = flags == "c"
		case "node", "bun":
			takesCode = flags == "e" || flags == "p" || flags == "-eval" || flags == "-print"
		case "ruby":
			takesCode = strings.HasSuffix(flags, "e")
		case "perl":
			perlP = perlP || strings.Contains(flags, "p")
			perlN = perlN || strings.Contains(flags, "n")
			takesCode = strings.HasSuffix(flags, "e") || strings.HasSuffix(flags, "E")
		case "php":
			takesCode = flags == "r"
		}
		if takesCode && i+1 < len(words) {
			code, haveCode = literalOr(words[i+1]), true
			if flags == "p" || flags == "-print" {
				code += "\nprint"
			}
			rest = words[i+2:]
		}
	}
	if !haveCode {
		code = sh.hdoc
	}
	if name == "perl" && len(rest) > 0 {
		// perl -pe 's/a/b/' FILE and perl -ne print FILE print their input.
		t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(code), ";"))
		_, subst := parseSed(t, true)
		if perlP && (t == "" || subst) || perlN && t == "print" {
			var out []line
			for _, in := range sh.inputs(rest, stdin) {
				out = append(out, in...)
			}
			return out
		}
	}
	if code == "" || !wholeRead.MatchString(code) || partRead.MatchString(code) || !prints.MatchString(code) {
		return unknown
	}
	var out []line
	for _, m := range skillPathInCode.FindAllStringSubmatch(code, -1) {
		out = append(out, sh.file(resolveHostPath(m[1], sh.cwd))...)
	}
	return out
}

// literalOr is the word's literal value, or "" when it has expansions.
func literalOr(w *syntax.Word) string {
	s, _ := literal(w)
	return s
}

// literal is the word's value when it holds no expansion: quotes
// removed, escapes applied, no glob taken.
func literal(w *syntax.Word) (string, bool) {
	s, glob, ok := globWord(w)
	if !ok || glob {
		// A glob word's literal is its pattern unescaped.
		if ok && glob {
			return unescapeGlob(s), true
		}
		return "", false
	}
	return s, true
}

// globWord is the word as a glob pattern (glob true: it has an unquoted
// *, ? or [; quoted ones are escaped with a backslash in the pattern),
// or as a plain value (glob false). ok is false on an expansion.
func globWord(w *syntax.Word) (s string, glob, ok bool) {
	var b strings.Builder
	var plain strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				c := v[i]
				if c == '\\' && i+1 < len(v) {
					i++
					if v[i] == '\n' {
						continue
					}
					writeQuoted(&b, v[i])
					plain.WriteByte(v[i])
					continue
				}
				if c == '*' || c == '?' || c == '[' {
					glob = true
				}
				b.WriteByte(c)
				plain.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false, false
			}
			for i := 0; i < len(p.Value); i++ {
				writeQuoted(&b, p.Value[i])
			}
			plain.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false, false
			}
			for _, q := range p.Parts {
				lit, isLit := q.(*syntax.Lit)
				if !isLit {
					return "", false, false
				}
				v := lit.Value
				for i := 0; i < len(v); i++ {
					c := v[i]
					if c == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
						i++
						if v[i] == '\n' {
							continue
						}
						c = v[i]
					}
					writeQuoted(&b, c)
					plain.WriteByte(c)
				}
			}
		default:
			return "", false, false
		}
	}
	if glob {
		return b.String(), true, true
	}
	return plain.String(), false, true
}

func writeQuoted(b *strings.Builder, c byte) {
	if c == '*' || c == '?' || c == '[' || c == '\\' {
		b.WriteByte('\\')
	}
	b.WriteByte(c)
}

func unescapeGlob(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
