// Command skill-lifecycle manages the life of Agent Skills bodies in a coding
// agent's context: it lists and validates skills, explains why a body stays
// or goes, serves the lifecycle engine to the Pi bridge extension over
// JSON-RPC, and replays recorded sessions to price strategies.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand. run gets the arguments after the subcommand's
// name and returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("skill-lifecycle: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: skill-lifecycle <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'skill-lifecycle <command> --help' for a command's flags.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand; exit codes: 0 success, 1 the command's own
// failure (e.g. invalid skills), 2 usage errors.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(stdout)
		return 0
	case "--version", "-version":
		return runVersion(nil, stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "skill-lifecycle: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	// What the commands print may hold skill text: control characters are
	// shown as escapes (terminalWriter). serve's standard output is the
	// JSON-RPC stream, which the sidecar escapes itself where it speaks
	// to the user.
	errw := newTerminalWriter(stderr)
	defer errw.Flush()
	if c.name != "serve" {
		outw := newTerminalWriter(stdout)
		defer outw.Flush()
		stdout = outw
	}
	return c.run(args[1:], stdout, errw)
}

// parseFlags parses a subcommand's flags. --help prints the usage on stdout
// and ends the command with 0; a bad flag (already reported on the flag
// set's output) ends it with 2. ok is true when the command should go on.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, ok bool) {
	err := fs.Parse(args)
	if err == nil {
		return 0, true
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0, false
	}
	return 2, false
}
