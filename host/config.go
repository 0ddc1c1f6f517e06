package host

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// MaxConfigSize bounds a skill-lifecycle.json read; a bigger file is
// refused unread.
const MaxConfigSize = 1 << 20

// LoadConfig reads the configuration of src: the user's
// <agentDir>/skill-lifecycle.json and, when the project counts (trusted,
// or the user's trustProjectConfig for a host without trust),
// <cwd>/.pi/skill-lifecycle.json. An untrusted project's file is never
// opened, only reported as ignored (docs/config.md). The diagnostics are
// one line each.
func LoadConfig(src Source) (rules.Config, []string) {
	var diags []string
	userFile := filepath.Join(src.AgentDir, rules.FileName)
	var user rules.Fragment
	if src.AgentDir != "" {
		user, diags = readFragment(userFile)
	}
	trust := rules.TrustUnknown
	if src.Trusted != nil {
		trust = rules.Untrusted
		if *src.Trusted {
			trust = rules.Trusted
		}
	}
	// The project's file is opened only once trust is settled: an
	// untrusted file is never read (a link to /dev/tty or a named pipe
	// committed as that file must not be opened at all), only noticed.
	projectFile := filepath.Join(src.Cwd, ".pi", rules.FileName)
	var project rules.Fragment
	if rules.ProjectCounts(user, trust) {
		var pd []string
		project, pd = readFragment(projectFile)
		diags = append(diags, pd...)
	} else if _, err := os.Lstat(projectFile); err == nil {
		why := "the project is not trusted (in Pi 1.6: run pi with -a, or save a trust decision with /trust, docs/config.md)"
		if trust == rules.TrustUnknown {
			why = fmt.Sprintf("the host does not say whether the project is trusted, and %s does not set \"trustProjectConfig\": true (docs/config.md)", userFile)
		}
		diags = append(diags, fmt.Sprintf("%s is ignored: %s", projectFile, why))
	}
	return rules.Merge(user, project, trust), diags
}

// ReadConfigFile reads path as the only configuration over the defaults
// (replay --config, explain --config). Warnings are returned; an error in
// the file, or a file that cannot be read, is an error.
func ReadConfigFile(path string) (rules.Config, []string, error) {
	data, err := readConfig(path)
	if errors.Is(err, errTooBig) {
		return rules.Config{}, nil, fmt.Errorf("%w; too big for a configuration file, not read", err)
	}
	if err != nil {
		return rules.Config{}, nil, err
	}
	frag, diags := rules.Parse(data, path)
	var warns []string
	for _, d := range diags {
		if d.Severity == skills.Error {
			return rules.Config{}, nil, errors.New(d.String())
		}
		warns = append(warns, d.String())
	}
	return rules.Merge(frag, rules.Fragment{}, rules.Untrusted), warns, nil
}

// readFragment reads one configuration file of a session; a missing file
// sets nothing, and one that cannot be read is ignored with a diagnostic.
func readFragment(path string) (rules.Fragment, []string) {
	data, err := readConfig(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rules.Fragment{}, nil
	case errors.Is(err, regfile.ErrNotRegular), errors.Is(err, errTooBig):
		return rules.Fragment{}, []string{fmt.Sprintf("%v; the file is ignored", err)}
	case err != nil:
		return rules.Fragment{}, []string{fmt.Sprintf("%v; defaults apply", err)}
	}
	frag, ds := rules.Parse(data, path)
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return frag, out
}

// errTooBig is the error of readConfig for a file over MaxConfigSize.
var errTooBig = fmt.Errorf("over %d bytes", MaxConfigSize)

// readConfig is the one reader of configuration files: a regular file
// (anything else is refused unopened) of at most MaxConfigSize bytes. Its
// errors name the file.
func readConfig(path string) ([]byte, error) {
	f, err := regfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, regfile.ErrNotRegular) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxConfigSize {
		return nil, fmt.Errorf("%s: %w", path, errTooBig)
	}
	return data, nil
}
