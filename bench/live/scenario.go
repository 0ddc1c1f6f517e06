//go:build e2e

package live

import (
	"fmt"
	"path/filepath"
	"time"
)

// StepKind is what the scripted agent does in one model request.
type StepKind int

// The step kinds.
const (
	// LoadSkill loads a skill's instructions whether or not they are
	// already in the context: with `read` of the SKILL.md the system
	// prompt lists when there is no `skill` tool, with the `skill` tool
	// when Pi offers one (the bridge blocks direct reads).
	LoadSkill StepKind = iota
	// NeedSkill comes back to a skill loaded earlier: when its body is
	// still in the context the agent uses it and makes no request for this
	// step; when it is not (archived), the agent loads it as LoadSkill does.
	NeedSkill
	// ReadFile reads a file of the project (path relative to the project).
	ReadFile
	// ReadRef reads a file of a skill's folder (path relative to it).
	ReadRef
	// RunBash runs a shell command in the project.
	RunBash
	// WriteFile writes a file of the project.
	WriteFile
	// Answer ends the turn with text.
	Answer
)

func (k StepKind) String() string {
	switch k {
	case LoadSkill:
		return "load"
	case NeedSkill:
		return "need"
	case ReadFile:
		return "read"
	case ReadRef:
		return "ref"
	case RunBash:
		return "bash"
	case WriteFile:
		return "write"
	case Answer:
		return "answer"
	}
	return fmt.Sprintf("StepKind(%d)", int(k))
}

// Step is one action of the scripted agent.
type Step struct {
	Kind    StepKind
	Skill   string // LoadSkill, NeedSkill, ReadRef
	Path    string // ReadFile, ReadRef, WriteFile
	Command string // RunBash
	Content string // WriteFile
	Text    string // Answer
}

// Turn is one user message and what the agent does about it.
type Turn struct {
	Prompt string
	// Think is the virtual time between the end of the previous turn and
	// this prompt (ignored for the first turn).
	Think time.Duration
	Steps []Step
}

// Scenario is a scripted multi-turn session on a project.
type Scenario struct {
	Name  string
	About string
	// Project returns the files the project starts from (nil: the Go
	// service of project.go); Files are written over them (paths relative
	// to the project). All are committed to a git repository before the
	// first turn.
	Project func() map[string]string
	Files   map[string]string
	// Packs are the folders, relative to the repository root, whose skill
	// folders are installed in the project, each over the ones before
	// (none: testdata/pack). The first is the skill pack itself.
	Packs []string
	Turns []Turn
}

// PackDirs returns the scenario's pack folders under the repository root.
func (s Scenario) PackDirs(root string) []string {
	if len(s.Packs) == 0 {
		return []string{filepath.Join(root, "testdata", "pack")}
	}
	out := make([]string, len(s.Packs))
	for i, p := range s.Packs {
		out[i] = filepath.Join(root, filepath.FromSlash(p))
	}
	return out
}

// Load, Need, Read, Ref, Bash, Write and Say build steps.
func Load(skill string) Step          { return Step{Kind: LoadSkill, Skill: skill} }
func Need(skill string) Step          { return Step{Kind: NeedSkill, Skill: skill} }
func Read(path string) Step           { return Step{Kind: ReadFile, Path: path} }
func Ref(skill, path string) Step     { return Step{Kind: ReadRef, Skill: skill, Path: path} }
func Bash(cmd string) Step            { return Step{Kind: RunBash, Command: cmd} }
func Write(path, content string) Step { return Step{Kind: WriteFile, Path: path, Content: content} }
func Say(text string) Step            { return Step{Kind: Answer, Text: text} }

// Check reports scripting mistakes: a turn without steps or not ending
// with an answer, an answer before the end, a step missing its argument.
func (s Scenario) Check() error {
	if s.Name == "" || len(s.Turns) == 0 {
		return fmt.Errorf("scenario %q: no name or no turns", s.Name)
	}
	for i, t := range s.Turns {
		if t.Prompt == "" || len(t.Steps) == 0 {
			return fmt.Errorf("scenario %s turn %d: empty prompt or no steps", s.Name, i+1)
		}
		for j, st := range t.Steps {
			last := j == len(t.Steps)-1
			if (st.Kind == Answer) != last {
				return fmt.Errorf("scenario %s turn %d step %d: a turn ends with exactly one answer", s.Name, i+1, j+1)
			}
			bad := false
			switch st.Kind {
			case LoadSkill, NeedSkill:
				bad = st.Skill == ""
			case ReadFile:
				bad = st.Path == ""
			case ReadRef:
				bad = st.Skill == "" || st.Path == ""
			case RunBash:
				bad = st.Command == ""
			case WriteFile:
				bad = st.Path == ""
			case Answer:
				bad = st.Text == ""
			}
			if bad {
				return fmt.Errorf("scenario %s turn %d step %d (%s): missing argument", s.Name, i+1, j+1, st.Kind)
			}
		}
	}
	return nil
}

// MaxRequests is the number of model requests the scenario makes when every
// NeedSkill step has to reload (with the bridge); MinRequests when none does
// (without extension).
func (s Scenario) MaxRequests() int {
	n := 0
	for _, t := range s.Turns {
		n += len(t.Steps)
	}
	return n
}

// MinRequests: see MaxRequests.
func (s Scenario) MinRequests() int {
	n := 0
	for _, t := range s.Turns {
		for _, st := range t.Steps {
			if st.Kind != NeedSkill {
				n++
			}
		}
	}
	return n
}
