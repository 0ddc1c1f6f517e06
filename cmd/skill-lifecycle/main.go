// Command skill-lifecycle manages the life of Agent Skills bodies in a coding
// agent's context: it lists and validates skills, explains why a body stays
// or goes, serves the lifecycle engine to the Pi bridge extension over
// JSON-RPC, and replays recorded sessions to price strategies.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
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
	fmt.Fprintln(w, "\nRun 'skill-lifecycle help <command>' (or '<command> --help') for its flags.")
	fmt.Fprintln(w, "Exit status: 0 done, 1 the command's own failure (an invalid skill, an input")
	fmt.Fprintln(w, "that could not be read), 2 a usage mistake (a bad flag or flag value, a path")
	fmt.Fprintln(w, "that does not exist), 3 replay: nothing could be replayed.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the exit code (exitOK,
// exitFailed, exitUsage, exitNothing). "help CMD" is "CMD --help".
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "help":
		if len(args) == 1 {
			usage(stdout)
			return exitOK
		}
		if len(args) > 2 {
			fmt.Fprintf(stderr, "skill-lifecycle help: unexpected argument %q\nusage: skill-lifecycle help [command]\n", args[2])
			return exitUsage
		}
		args = []string{args[1], "--help"}
	case "--version", "-version":
		return runVersion(nil, stdout, stderr)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "skill-lifecycle: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
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
