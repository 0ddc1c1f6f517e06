package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// Exit codes, the same for the same mistake in every command (README,
// "Exit status").
const (
	exitOK      = 0 // done
	exitFailed  = 1 // the command's own finding: an invalid skill, an input that could not be read
	exitUsage   = 2 // a usage mistake: a bad or unknown flag, a bad flag value, a missing argument, a path that does not exist, a config or prices file that does not parse
	exitNothing = 3 // replay: nothing could be replayed
)

// cliFlags is a subcommand's flag set with the command line's conventions:
// help printed once (on stdout when asked for, exit 0), a usage mistake
// named on stderr with the usage line (exit 2), a usage line generated
// from the flags defined so that it cannot drift from them, and a bad
// flag value answered with what the flag wants.
type cliFlags struct {
	*flag.FlagSet
	prefix string // what error lines start with: "skill-lifecycle explain"
	args   string // the positional arguments in the usage line: "PROMPT"
	about  string // printed after the usage line
	after  string // printed after the flags
	bad    *badValue
}

// badValue is the flag value that failed to parse.
type badValue struct {
	flag, value string
	err         error
}

// repeatable is implemented by flag values that may be given more than
// once (shown as "[--skills DIR]..." in the usage line).
type repeatable interface{ repeatable() }

func newFlags(name, prefix, args, about string) *cliFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package prints its errors and the usage itself; this type
	// prints each once, on the stream it belongs to.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cliFlags{FlagSet: fs, prefix: prefix, args: args, about: about}
}

// valueName is the placeholder of a flag's value in the usage: the
// `quoted` word of its usage text, else its type in capitals ("" for a
// boolean flag).
func valueName(f *flag.Flag) string {
	if b, ok := f.Value.(checkedBool); ok {
		f = &flag.Flag{Name: f.Name, Usage: f.Usage, Value: b.Value, DefValue: f.DefValue}
	} else if c, ok := f.Value.(*checkedValue); ok {
		f = &flag.Flag{Name: f.Name, Usage: f.Usage, Value: c.Value, DefValue: f.DefValue}
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	name, _ := flag.UnquoteUsage(f)
	if strings.Contains(f.Usage, "`") {
		return name
	}
	switch name {
	case "", "value":
		return "VALUE"
	case "float":
		return "X"
	case "int", "uint", "int64", "uint64":
		return "N"
	}
	return strings.ToUpper(name)
}

// synopsis is the usage line, every flag in it.
func (c *cliFlags) synopsis() string {
	var b strings.Builder
	b.WriteString("usage: skill-lifecycle ")
	b.WriteString(c.Name())
	c.VisitAll(func(f *flag.Flag) {
		b.WriteString(" [--" + f.Name)
		if v := valueName(f); v != "" {
			b.WriteString(" " + v)
		}
		b.WriteString("]")
		v := f.Value
		if c, ok := v.(*checkedValue); ok {
			v = c.Value
		}
		if b, ok := v.(checkedBool); ok {
			v = b.Value
		}
		if _, ok := v.(repeatable); ok {
			b.WriteString("...")
		}
	})
	if c.args != "" {
		b.WriteString(" " + c.args)
	}
	return b.String()
}

// help writes the whole help: usage line, about, flags, after.
func (c *cliFlags) help(w io.Writer) {
	fmt.Fprintln(w, c.synopsis())
	if c.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.about))
	}
	n := 0
	c.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
	}
	c.VisitAll(func(f *flag.Flag) {
		line := "  --" + f.Name
		if v := valueName(f); v != "" {
			line += " " + v
		}
		_, text := flag.UnquoteUsage(f)
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" {
			text += " (default " + d + ")"
		}
		fmt.Fprintln(w, line)
		for _, l := range wrap(text, 72) {
			fmt.Fprintln(w, "      "+l)
		}
	})
	if c.after != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.after))
	}
}

// wrap cuts text into lines of at most width bytes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// parse parses args. -h, -help and --help print the help on stdout and end
// the command with 0; a usage mistake is named on stderr with the usage
// line and ends it with 2. ok is true when the command should go on.
func (c *cliFlags) parse(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	c.VisitAll(func(f *flag.Flag) {
		switch f.Value.(type) {
		case *checkedValue, checkedBool:
			return
		}
		v := &checkedValue{Value: f.Value, name: f.Name, c: c}
		if valueName(f) == "" {
			f.Value = checkedBool{v}
		} else {
			f.Value = v
		}
	})
	err := c.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		c.help(stdout)
		return exitOK, false
	case c.bad != nil:
		return c.usageError(stderr, "--%s %q: %s", c.bad.flag, c.bad.value, c.bad.err), false
	}
	msg := err.Error()
	if name, found := strings.CutPrefix(msg, "flag provided but not defined: -"); found {
		msg = "unknown flag --" + name
	} else if name, found := strings.CutPrefix(msg, "flag needs an argument: -"); found {
		msg = "--" + name + " needs a value"
		if f := c.Lookup(name); f != nil {
			msg += " (" + valueName(f) + ")"
		}
	}
	return c.usageError(stderr, "%s", msg), false
}

// usageError names a usage mistake on stderr, then the usage line and
// where the help is, and returns exitUsage.
func (c *cliFlags) usageError(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", c.prefix, fmt.Sprintf(format, a...))
	fmt.Fprintln(stderr, c.synopsis())
	fmt.Fprintf(stderr, "Run 'skill-lifecycle %s --help' for details.\n", c.Name())
	return exitUsage
}

// checkedValue wraps a flag's value so that a value that does not parse
// says what the flag wants ("a duration such as 5m or 300s, or 0") instead
// of the flag package's "parse error".
type checkedValue struct {
	flag.Value
	name string
	c    *cliFlags
}

// checkedBool is a checkedValue of a boolean flag, which takes no value
// unless given one with = (--json=false).
type checkedBool struct{ *checkedValue }

func (checkedBool) IsBoolFlag() bool { return true }

func (v *checkedValue) Set(s string) error {
	err := v.Value.Set(s)
	if err != nil {
		v.c.bad = &badValue{flag: v.name, value: s, err: wantError(v.Value, s, err)}
	}
	return err
}

func (v *checkedValue) Get() any {
	if g, ok := v.Value.(flag.Getter); ok {
		return g.Get()
	}
	return v.Value.String()
}

// wantError says what a flag of value's type wants, given s that did not
// parse; a value of the command's own type keeps its own error.
func wantError(value flag.Value, s string, err error) error {
	g, ok := value.(flag.Getter)
	if !ok {
		return err
	}
	switch g.Get().(type) {
	case time.Duration:
		w := "want a duration such as 5m or 300s, or 0"
		if s != "0" && strings.Trim(s, "0123456789.") == "" {
			w += " (a number needs a unit: " + s + "s or " + s + "m)"
		}
		return errors.New(w)
	case int, int64:
		return errors.New("want a whole number such as 3")
	case uint, uint64:
		return errors.New("want a whole number, 0 or more")
	case float64:
		return errors.New("want a number such as 2 or 0.5")
	case bool:
		return errors.New("want true or false")
	}
	return err
}
