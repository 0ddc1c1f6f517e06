package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// configRule is what explain's and list's help say about the
// configuration they read.
const configRule = `
Configuration: as the sidecar reads it for a host that does not say whether
the project is trusted (Pi 0.73): <agent dir>/skill-lifecycle.json (the agent
dir is $PI_CODING_AGENT_DIR, else ~/.pi/agent), and ./.pi/skill-lifecycle.json
only when the user's file sets "trustProjectConfig": true. A project trusted
in Pi 1.6 (/trust, pi -a) is not known here. Problems in either file are
named on stderr and the file is ignored (docs/config.md).`

// pathError says err about the file at path (named on the command
// line): "path: no such file or directory" rather than the system call's
// "stat path: ...". Other errors name the file themselves.
func pathError(path string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return skills.TerminalText(path) + ": " + pe.Err.Error()
	}
	return err.Error()
}

// agentDir is Pi's agent folder for o: $PI_CODING_AGENT_DIR, else
// ~/.pi/agent ("" when neither is known).
func agentDir(o skills.Options) string {
	if o.AgentDir != "" {
		return o.AgentDir
	}
	if o.Home != "" {
		return filepath.Join(o.Home, ".pi", "agent")
	}
	return ""
}

// loadConfig is the configuration explain and list apply: the file of
// --config alone when given (a file that cannot be read or does not parse
// is a usage mistake: ok false, the message on stderr), else the user's
// and the project's files as the sidecar reads them (host.LoadConfig) for
// a host with no notion of trust (configRule), their problems named on
// stderr with prefix.
func loadConfig(file, prefix string, stderr io.Writer) (cfg rules.Config, ok bool) {
	if file != "" {
		c, warnings, err := host.ReadConfigFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "%s: --config %s\n", prefix, pathError(file, err))
			return rules.Config{}, false
		}
		for _, w := range warnings {
			fmt.Fprintf(stderr, "%s: %s\n", prefix, w)
		}
		return c, true
	}
	env, err := skills.EnvOptions()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v; the built-in defaults apply\n", prefix, err)
		return rules.Default(), true
	}
	c, diags := host.LoadConfig(host.Source{Cwd: env.Cwd, AgentDir: agentDir(env)})
	for _, d := range diags {
		fmt.Fprintf(stderr, "%s: %s\n", prefix, d)
	}
	return c, true
}
