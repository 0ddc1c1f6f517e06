package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Stamped by the packaged build (scripts/package.sh):
//
//	go build -ldflags "-X main.version=v0.1.0 -X main.commit=<sha> -X main.modified=true"
//
// Left empty, the module version and the VCS commit come from the build
// information Go embeds (runtime/debug.ReadBuildInfo).
var (
	version  string
	commit   string
	modified string // "true" when the packaged tree had uncommitted changes
)

func init() {
	register(command{
		name:    "version",
		summary: "print the version, the commit it was built from and the Go toolchain",
		run:     runVersion,
	})
}

// buildVersion says what a binary was built from.
type buildVersion struct {
	Version  string // module version: v0.1.0, a pseudo-version, or "devel"
	Commit   string // VCS revision, "" when unknown
	Modified bool   // built from a tree with uncommitted changes
	Go       string // toolchain, e.g. go1.26.8
	Platform string // GOOS/GOARCH
}

// currentVersion prefers the -ldflags stamp, then the build information.
func currentVersion() buildVersion {
	v := buildVersion{Version: version, Commit: commit, Modified: modified == "true", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		if v.Commit == "" {
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					v.Commit = s.Value
				case "vcs.modified":
					v.Modified = s.Value == "true"
				}
			}
		}
	}
	if v.Version == "" {
		v.Version = "devel"
	}
	return v
}

// String is the line --version prints:
// "skill-lifecycle v0.1.0 (commit 0123abcd…, modified) go1.26.8 linux/amd64".
func (v buildVersion) String() string {
	c := "commit unknown"
	if v.Commit != "" {
		c = "commit " + v.Commit
	}
	if v.Modified {
		c += ", modified"
	}
	return fmt.Sprintf("skill-lifecycle %s (%s) %s %s", v.Version, c, v.Go, v.Platform)
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", "version", "", "Prints the version, the commit it was built from and the Go toolchain\n(also: skill-lifecycle --version).")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return fs.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintln(stdout, currentVersion())
	return exitOK
}
