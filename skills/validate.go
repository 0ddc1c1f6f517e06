package skills

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Mode chooses whose rules Validate applies.
type Mode int

const (
	// Lenient is Pi's behaviour: name problems and a long description are
	// warnings and the skill still loads; a missing or blank description
	// (or, from Parse, unreadable frontmatter) skips it.
	Lenient Mode = iota
	// Strict is the Agent Skills reference validator's (skills-ref)
	// behaviour: every rule of the specification is an error, including
	// unknown frontmatter fields and a name that differs from its folder.
	Strict
)

func (m Mode) String() string {
	if m == Strict {
		return "strict"
	}
	return "lenient"
}

// Limits from the Agent Skills specification, counted in characters (code
// points), as skills-ref counts them.
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
)

// AllowedFields are the only top-level frontmatter keys strict mode admits.
var AllowedFields = []string{"name", "description", "license", "allowed-tools", "metadata", "compatibility"}

// Validate applies mode's rules to a parsed skill and returns the problems
// found (Parse's own diagnostics are not repeated). A skill loads (Lenient)
// or is valid (Strict) when neither Parse nor Validate reports an Error.
//
// Names in the two references disagree about Unicode, and this is the
// choice made here: Lenient follows Pi, whose pattern is ^[a-z0-9-]+$, so
// "技能" or "мой-навык" draws an "invalid characters" warning and still
// loads. Strict follows skills-ref, which accepts any Unicode letter or
// digit: the name and its folder's name are normalised with Normalize
// (NFKC), stripped, counted in characters, and must be
// lower case ("НАВЫК" is rejected, "навык" accepted).
func Validate(s *Skill, mode Mode) []Diagnostic {
	if mode == Strict {
		return validateStrict(s)
	}
	return validateLenient(s)
}

// Load parses and validates one file. ok reports whether the skill loads
// (Lenient) or is valid (Strict), i.e. no diagnostic is an Error.
func Load(path string, data []byte, mode Mode) (s *Skill, diags []Diagnostic, ok bool) {
	return load(path, data, mode, false)
}

// load is Load; owned is parse's.
func load(path string, data []byte, mode Mode, owned bool) (s *Skill, diags []Diagnostic, ok bool) {
	s, diags = parse(path, data, owned)
	if !hasError(diags) {
		diags = append(diags, Validate(s, mode)...)
	}
	return s, diags, !hasError(diags)
}

func hasError(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// HasError reports whether any diagnostic is an Error.
func HasError(ds []Diagnostic) bool { return hasError(ds) }

func (s *Skill) fieldLine(key string) int {
	for _, f := range s.Fields {
		if f.Key == key {
			return f.Line
		}
	}
	return 0
}

func (s *Skill) hasField(key string) bool { return s.fieldLine(key) > 0 }

func validateLenient(s *Skill) []Diagnostic {
	var ds []Diagnostic
	add := func(field string, sev Severity, code, format string, args ...any) {
		ds = append(ds, Diagnostic{Path: s.Path, Line: s.fieldLine(field), Field: field, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(s.Description) == "" {
		add("description", Error, "description-required", "description is required; Pi does not load a skill without one")
	} else if n := utf8.RuneCountInString(s.Description); n > MaxDescriptionLength {
		add("description", Warning, "description-too-long", "description is %d characters; it exceeds %d characters", n, MaxDescriptionLength)
	}
	name := s.Name
	if parent := filepath.Base(s.Dir); name != parent {
		add("name", Warning, "name-mismatch", "name %q does not match parent directory %q", name, parent)
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		add("name", Warning, "name-too-long", "name is %d characters; it exceeds %d characters", n, MaxNameLength)
	}
	if !asciiName(name) {
		add("name", Warning, "name-invalid-characters", "name %q contains invalid characters; use only a-z, 0-9 and -", name)
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		add("name", Warning, "name-hyphen-edge", "name %q must not start or end with a hyphen", name)
	}
	if strings.Contains(name, "--") {
		add("name", Warning, "name-consecutive-hyphens", "name %q must not contain consecutive hyphens", name)
	}
	return ds
}

func asciiName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validateStrict(s *Skill) []Diagnostic {
	var ds []Diagnostic
	add := func(field string, code, format string, args ...any) {
		ds = append(ds, Diagnostic{Path: s.Path, Line: s.fieldLine(field), Field: field, Severity: Error, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if !s.HasFrontmatter {
		add("", "no-frontmatter", "SKILL.md must start with YAML frontmatter (a first line \"---\")")
		return ds
	}
	var unknown []string
	for _, f := range s.Fields {
		if !isAllowedField(f.Key) {
			unknown = append(unknown, f.Key)
		}
	}
	if len(unknown) > 0 {
		ds = append(ds, Diagnostic{Path: s.Path, Line: s.fieldLine(unknown[0]), Field: unknown[0], Severity: Error, Code: "unexpected-fields",
			Message: fmt.Sprintf("Unexpected fields in frontmatter: %s; only %s are allowed", strings.Join(unknown, ", "), strings.Join(AllowedFields, ", "))})
	}

	if !s.hasField("name") || strings.TrimSpace(s.Name) == "" {
		add("name", "missing-name", "Missing required field in frontmatter: name")
	} else {
		name := strings.TrimSpace(Normalize(s.Name))
		if n := utf8.RuneCountInString(name); n > MaxNameLength {
			add("name", "name-too-long", "name %q is %d characters; it exceeds the %d character limit", name, n, MaxNameLength)
		}
		if strings.ToLower(name) != name {
			add("name", "name-not-lowercase", "name %q must be lowercase", name)
		}
		if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
			add("name", "name-hyphen-edge", "name %q cannot start or end with a hyphen", name)
		}
		if strings.Contains(name, "--") {
			add("name", "name-consecutive-hyphens", "name %q cannot contain consecutive hyphens", name)
		}
		for _, r := range name {
			if !(unicode.IsLetter(r) || unicode.IsNumber(r) || r == '-') {
				add("name", "name-invalid-characters", "name %q contains invalid characters; only letters, digits and hyphens are allowed", name)
				break
			}
		}
		if dir := Normalize(filepath.Base(s.Dir)); dir != name {
			add("name", "name-mismatch", "directory name %q must match skill name %q", filepath.Base(s.Dir), name)
		}
	}

	if !s.hasField("description") || strings.TrimSpace(s.Description) == "" {
		add("description", "missing-description", "Missing required field in frontmatter: description")
	} else if n := utf8.RuneCountInString(s.Description); n > MaxDescriptionLength {
		add("description", "description-too-long", "description is %d characters; it exceeds the %d character limit", n, MaxDescriptionLength)
	}
	if n := utf8.RuneCountInString(s.Compatibility); n > MaxCompatibilityLength {
		add("compatibility", "compatibility-too-long", "compatibility is %d characters; it exceeds the %d character limit", n, MaxCompatibilityLength)
	}
	return ds
}

func isAllowedField(k string) bool {
	for _, a := range AllowedFields {
		if a == k {
			return true
		}
	}
	return false
}

// Normalize returns s in Unicode NFKC, as skills-ref normalises names
// (Python's unicodedata.normalize("NFKC")): fullwidth forms become ASCII,
// a letter followed by combining marks is composed ("cafe\u0301" becomes
// "café"), ligatures such as "ﬁ" are spelled out.
func Normalize(s string) string { return norm.NFKC.String(s) }
