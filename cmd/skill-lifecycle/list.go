package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func init() {
	register(command{name: "list", summary: "list the skills Pi would load, with source, role and diagnostics", run: runList})
}

// inferRoles returns the roles inferred for skills that declare none (by
// name): the entry of each folder of skills that declares none, as the
// catalog infers it (host.OfCatalog, lifecycle.CatalogOf). Tests replace
// it; nil means no inference.
var inferRoles = func(c *skills.Catalog) map[string]skills.Role {
	out := map[string]skills.Role{}
	for _, name := range host.OfCatalog(c, rules.Default()).Catalog.Inferred {
		out[name] = skills.RoleEntry
	}
	return out
}

// Role sources shown by list.
const (
	roleFromFrontmatter = "frontmatter"
	roleInferred        = "inferred"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
func (m *multiFlag) repeatable()        {}

type diagJSON struct {
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Field     string `json:"field,omitempty"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	OtherPath string `json:"otherPath,omitempty"`
}

func toDiagJSON(ds []skills.Diagnostic) []diagJSON {
	out := make([]diagJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagJSON{d.Path, d.Line, d.Field, d.Severity.String(), d.Code, d.Message, d.OtherPath})
	}
	return out
}

type listSkillJSON struct {
	Name                   string `json:"name"`
	Description            string `json:"description"`
	Source                 string `json:"source"`
	Path                   string `json:"path"`
	Role                   string `json:"role"`
	RoleSource             string `json:"roleSource"`
	ModelTier              string `json:"modelTier,omitempty"`
	DisableModelInvocation bool   `json:"disableModelInvocation"`
}

// errNoPath is a path named on the command line that cannot be found: a
// usage mistake (exitUsage) in every command.
type errNoPath struct {
	flag, path string
	err        error
}

func (e *errNoPath) Error() string {
	return fmt.Sprintf("%s%s: %v", e.flag, skills.TerminalText(e.path), e.err)
}

// statPath checks that path, named by flag ("--skills " or "" for an
// argument), exists.
func statPath(flag, path string) error {
	_, err := os.Stat(path)
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &errNoPath{flag: flag, path: path, err: err}
}

// exitOf is the exit code of a command that failed with err: exitUsage
// for a path that does not exist, else exitFailed.
func exitOf(err error) int {
	var np *errNoPath
	if errors.As(err, &np) {
		return exitUsage
	}
	return exitFailed
}

// loadCatalog discovers skills: under the --skills folders when given,
// else with Pi's discovery from the current directory. A --skills path
// that does not exist is an *errNoPath.
func loadCatalog(dirs []string) (*skills.Catalog, error) {
	if len(dirs) > 0 {
		for _, d := range dirs {
			if err := statPath("--skills ", d); err != nil {
				return nil, err
			}
		}
		return skills.Discover(skills.Options{Paths: dirs, NoDefaults: true}), nil
	}
	opts, err := skills.EnvOptions()
	if err != nil {
		return nil, err
	}
	return skills.Discover(opts), nil
}

// searched names where loadCatalog(dirs) looks, as terminal text.
func searched(dirs []string) []string {
	if len(dirs) == 0 {
		if opts, err := skills.EnvOptions(); err == nil {
			for _, r := range skills.Roots(opts) {
				dirs = append(dirs, r.Path)
			}
		}
	}
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = skills.TerminalText(d)
	}
	return out
}

// Role sources shown by list beside those of roleOf's frontmatter and
// inference: the configuration's entrySkill or helperSkills.
const roleFromConfig = "config"

// roleOf returns a skill's role and where it came from, as the engine
// resolves it under cfg: the configured entrySkill first, then the
// frontmatter, then helperSkills, then the inferred role (only when the
// configuration names no installed entry and lets inference apply).
func roleOf(s *skills.Skill, inferred map[string]skills.Role, cfg rules.Config, installed map[string]bool) (skills.Role, string) {
	if cfg.EntrySkill != "" && cfg.EntrySkill == s.Name {
		return skills.RoleEntry, roleFromConfig
	}
	if s.Role != skills.RoleNone {
		return s.Role, roleFromFrontmatter
	}
	if cfg.IsHelper(s.Name) {
		return skills.RoleHelper, roleFromConfig
	}
	if cfg.EntrySkill != "" && installed[cfg.EntrySkill] || !cfg.InferEntrySkill {
		return skills.RoleNone, ""
	}
	if r, ok := inferred[s.Name]; ok && r != skills.RoleNone {
		return r, roleInferred
	}
	return skills.RoleNone, ""
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("list", "skill-lifecycle list", "", `
Lists the skills Pi would load from the current directory (or from the
--skills folders), with their source, role and where the role came from
(frontmatter, inferred, or the configuration's entrySkill and helperSkills),
then the diagnostics met.`)
	var dirs multiFlag
	fs.Var(&dirs, "skills", "a folder of skills `DIR` to list instead of Pi's discovery (repeatable)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	config := fs.String("config", "", "take the roles from this skill-lifecycle.json `FILE` alone instead of the configuration the sidecar reads (below)")
	fs.after = configRule
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return fs.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	cat, err := loadCatalog(dirs)
	if err != nil {
		fmt.Fprintf(stderr, "skill-lifecycle list: %v\n", err)
		return exitOf(err)
	}
	cfg, ok := loadConfig(*config, "skill-lifecycle list", stderr)
	if !ok {
		return exitUsage
	}
	var inferred map[string]skills.Role
	if inferRoles != nil {
		inferred = inferRoles(cat)
	}
	installed := make(map[string]bool, len(cat.Skills))
	for _, s := range cat.Skills {
		installed[s.Name] = true
	}
	if *asJSON {
		out := struct {
			Skills      []listSkillJSON `json:"skills"`
			Diagnostics []diagJSON      `json:"diagnostics"`
		}{Skills: []listSkillJSON{}, Diagnostics: toDiagJSON(cat.Diagnostics)}
		for _, s := range cat.Skills {
			role, from := roleOf(s, inferred, cfg, installed)
			out.Skills = append(out.Skills, listSkillJSON{s.Name, s.Description, s.Source, s.Path, string(role), from, s.ModelTier, s.DisableModelInvocation})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "skill-lifecycle list: %v\n", err)
			return 1
		}
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tROLE\tPATH")
	for _, s := range cat.Skills {
		role, from := roleOf(s, inferred, cfg, installed)
		r := "-"
		if role != skills.RoleNone {
			r = fmt.Sprintf("%s (%s)", role, from)
		}
		name := skills.TerminalText(s.Name)
		if s.DisableModelInvocation {
			name += " (hidden)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, skills.TerminalText(s.Source), r, skills.TerminalText(s.Path))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\n%d skills, %d diagnostics\n", len(cat.Skills), len(cat.Diagnostics))
	for _, d := range cat.Diagnostics {
		fmt.Fprintln(stdout, d)
	}
	return 0
}
