// Package skills finds, reads and validates Agent Skills, and renders
// what the model is shown of them.
//
//	cat := skills.Discover(skills.Options{Home: home, Cwd: cwd}) // where Pi looks; cat.Diagnostics
//	s, diags, ok := skills.Load(path, data, skills.Lenient)
//	section := skills.FormatPrompt(cat.Skills) // escaped
//
// Each SKILL.md is YAML frontmatter then a markdown body, validated either
// leniently, as Pi does when it loads a skill, or strictly, as the Agent
// Skills reference validator does. Every problem is a Diagnostic naming
// the file, and where known the line and field; a bad skill never stops
// the others from loading. Files are read only by Discover and the Check
// functions (and written only by GenerateSkills, for benchmarks); Parse
// and Validate work on the bytes they are handed. docs/skills.md gives the
// rules, and where Pi and the reference validator disagree.
package skills

import "github.com/skill-lifecycle/skill-lifecycle/internal/conf"

// Role is the part a skill plays in a pack: the entry (router) skill that
// sends the model to the others, a helper that working skills call, or none.
type Role string

// Roles a skill may declare with metadata.role.
const (
	RoleNone   Role = ""
	RoleEntry  Role = "entry"
	RoleHelper Role = "helper"
)

// Heading is one ATX heading of a skill body, outside code fences.
type Heading struct {
	Level int    // 1 to 6
	Text  string // without the leading #s and surrounding space
	Line  int    // 1-based line in the file
}

// Skill is one parsed skill.
type Skill struct {
	Name        string // frontmatter name, or the folder name when absent
	Description string
	// Path is the absolute path of the SKILL.md (or root .md) file as found;
	// RealPath has symlinks resolved. Dir is the skill's base folder (the
	// folder holding Path), BaseDir the resolved form of Dir.
	Path, RealPath string
	Dir            string
	// Source says where discovery found it: "user", "project", "path"
	// (Pi's own three values).
	Source string

	License       string
	Compatibility string
	// Metadata keeps the metadata map's scalar values as written
	// (version: 1.0 stays "1.0").
	Metadata               map[string]string
	AllowedTools           string // space-delimited, as the spec writes it
	DisableModelInvocation bool

	Role      Role   // from metadata.role, when valid
	ModelTier string // from metadata.modelTier, as written

	Headings []Heading
	Body     string // markdown after the frontmatter, not trimmed
	BodyLine int    // 1-based line where Body starts
	Size     int64  // size of the file in bytes

	// HasFrontmatter reports whether the file opened with a closed
	// frontmatter block. Fields lists the frontmatter's top-level keys in
	// the order written, with their lines (for the strict unknown-field
	// check and for diagnostics).
	HasFrontmatter bool
	Fields         []Field
}

// Field is one top-level frontmatter key and the 1-based line it is on.
type Field struct {
	Key  string
	Line int
}

// Severity orders diagnostics; it is the one severity of the module's
// diagnostics, configuration and skill files alike.
type Severity = conf.Severity

// Severities.
const (
	Warning = conf.Warning // the skill still loads
	Error   = conf.Error   // the skill is skipped (lenient) or invalid (strict)
)

// Diagnostic is one problem found in a skill file, a skills folder or a
// collision between two skills.
type Diagnostic struct {
	Path     string   // the file or folder concerned
	Line     int      // 1-based, 0 when unknown
	Field    string   // frontmatter field, when the problem is in one
	Severity Severity //
	Code     string   // short stable identifier, e.g. "name-mismatch"
	Message  string   // a sentence a person can act on
	// OtherPath names the second file of a collision (the loser), if any.
	OtherPath string
}
