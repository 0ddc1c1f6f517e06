package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

func init() {
	register(command{
		name:    "serve",
		summary: "serve the lifecycle engine to a host (the Pi bridge) over JSON-RPC on stdio",
		run:     func(args []string, stdout, stderr io.Writer) int { return runServe(args, os.Stdin, stdout, stderr) },
	})
}

// stdio joins the process's stdin and stdout into one stream.
type stdio struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (s stdio) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// runServe speaks the protocol of docs/protocol.md on stdin and stdout
// until the host sends exit, closes stdin or a signal (SIGTERM, SIGINT)
// comes. Diagnostics go to stderr. Exit codes: 0 after shutdown and exit,
// 1 when the stream ended or a signal came without shutdown, 2 on bad
// flags.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("serve", "serve", "", "Speaks JSON-RPC 2.0 with Content-Length framing on stdin/stdout (see docs/protocol.md).")
	fs.after = "Exit status: 0 after shutdown and exit, 1 when the stream ended or a signal came\nwithout shutdown, 2 a usage mistake."
	maxMsg := fs.Int64("max-message", protocol.DefaultMaxMessage, "largest accepted message body in bytes")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return fs.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	if *maxMsg <= 0 {
		return fs.usageError(stderr, "--max-message %d: want a positive number of bytes", *maxMsg)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rw := stdio{Reader: stdin, Writer: stdout}
	if c, ok := stdin.(io.Closer); ok {
		rw.closers = append(rw.closers, c)
	}
	srv := protocol.NewServer(protocol.Options{ServerVersion: serveVersion(), MaxMessage: *maxMsg, Stats: sessionStats})
	// On SIGTERM or SIGINT Serve returns at once, even in the middle of a
	// request, and so does the process.
	if err := srv.Serve(ctx, rw); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("stopped by a signal before shutdown")
		}
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return 1
	}
	return 0
}

// serveVersion is the version initialize reports: the packaged build's
// stamp, else the module version ("devel" when Go recorded none).
func serveVersion() string { return currentVersion().Version }
