package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/internal/conf"
)

// Fragment is what one configuration file sets: a nil field (or nil
// Models) is a key the file leaves out. Parse produces one; Merge lays
// fragments over the defaults.
type Fragment struct {
	Enabled                 *bool           `json:"enabled,omitempty"`
	TopK                    *int            `json:"topK,omitempty"`
	RelativeScore           *float64        `json:"relativeScore,omitempty"`
	MinSignal               *float64        `json:"minSignal,omitempty"`
	InferEntrySkill         *bool           `json:"inferEntrySkill,omitempty"`
	EntrySkill              *string         `json:"entrySkill,omitempty"`
	PinEntrySkill           *bool           `json:"pinEntrySkill,omitempty"`
	HelperSkills            *[]string       `json:"helperSkills,omitempty"`
	ProtectCallers          *bool           `json:"protectCallers,omitempty"`
	ProtectLoader           *bool           `json:"protectLoader,omitempty"`
	Rules                   *[]Rule         `json:"rules,omitempty"`
	Threshold               *float64        `json:"threshold,omitempty"`
	Pinned                  *[]string       `json:"pinned,omitempty"`
	MinKeep                 *int            `json:"minKeep,omitempty"`
	MaxKeep                 *int            `json:"maxKeep,omitempty"`
	EvictOnSkillLoad        *bool           `json:"evictOnSkillLoad,omitempty"`
	BlockDirectSkillReads   *bool           `json:"blockDirectSkillReads,omitempty"`
	ArchiveResources        *bool           `json:"archiveResources,omitempty"`
	Verbose                 *bool           `json:"verbose,omitempty"`
	Models                  json.RawMessage `json:"models,omitempty"`
	ModelsFile              string          `json:"-"` // where Models was written: the file
	ModelsLine              int             `json:"-"` // and the line its value starts on
	SkipOnShortPrompts      *bool           `json:"skipOnShortPrompts,omitempty"`
	MinScorablePromptLength *int            `json:"minScorablePromptLength,omitempty"`
	TopicChangeThreshold    *float64        `json:"topicChangeThreshold,omitempty"`
	TrustProjectConfig      *bool           `json:"trustProjectConfig,omitempty"`
	// CacheAware is the whole `cacheAware` object, its missing keys filled
	// with their defaults (an object is replaced whole when merging).
	CacheAware *CacheAware `json:"cacheAware,omitempty"`
	Dedupe     *string     `json:"dedupe,omitempty"`
	// Compaction is the whole `compaction` object, its missing keys
	// filled with their defaults.
	Compaction *Compaction `json:"compaction,omitempty"`
}

// Diagnostic is one problem found in a configuration file: its file,
// line and key. An Error means the whole file is ignored.
type Diagnostic = conf.Diagnostic

// Severity orders diagnostics (the module's one severity).
type Severity = conf.Severity

// Severities.
const (
	Warning = conf.Warning
	Error   = conf.Error
)

// Limits on numeric options. Larger values are rejected: they are typing
// mistakes, and they would overflow arithmetic downstream.
const (
	maxCount  = 1_000_000 // topK, minKeep, maxKeep, minScorablePromptLength
	maxWeight = 1e6       // minSignal, threshold, rule weight
)

// option describes one top-level key: how to decode it into a Fragment and
// how to lay a Fragment's value over a Config.
type option struct {
	key    string
	decode func(raw json.RawMessage, f *Fragment) string // "" when valid, else why not
	apply  func(f *Fragment, c *Config)
}

var options = []option{
	boolOpt("enabled", func(f *Fragment) **bool { return &f.Enabled }, func(c *Config) *bool { return &c.Enabled }),
	intOpt("topK", 0, maxCount, func(f *Fragment) **int { return &f.TopK }, func(c *Config) *int { return &c.TopK }),
	floatOpt("relativeScore", 0, 1, func(f *Fragment) **float64 { return &f.RelativeScore }, func(c *Config) *float64 { return &c.RelativeScore }),
	floatOpt("minSignal", 0, maxWeight, func(f *Fragment) **float64 { return &f.MinSignal }, func(c *Config) *float64 { return &c.MinSignal }),
	boolOpt("inferEntrySkill", func(f *Fragment) **bool { return &f.InferEntrySkill }, func(c *Config) *bool { return &c.InferEntrySkill }),
	{
		key: "entrySkill",
		decode: func(raw json.RawMessage, f *Fragment) string {
			var s string
			if msg := decodeString(raw, &s); msg != "" {
				return msg
			}
			s = strings.TrimSpace(s)
			f.EntrySkill = &s
			return ""
		},
		apply: func(f *Fragment, c *Config) {
			if f.EntrySkill != nil {
				c.EntrySkill = *f.EntrySkill
			}
		},
	},
	boolOpt("pinEntrySkill", func(f *Fragment) **bool { return &f.PinEntrySkill }, func(c *Config) *bool { return &c.PinEntrySkill }),
	namesOpt("helperSkills", func(f *Fragment) **[]string { return &f.HelperSkills }, func(c *Config) *[]string { return &c.HelperSkills }),
	boolOpt("protectCallers", func(f *Fragment) **bool { return &f.ProtectCallers }, func(c *Config) *bool { return &c.ProtectCallers }),
	boolOpt("protectLoader", func(f *Fragment) **bool { return &f.ProtectLoader }, func(c *Config) *bool { return &c.ProtectLoader }),
	{
		key:    "rules",
		decode: nil, // decodeRules, wired in init (it reports per-element keys)
		apply: func(f *Fragment, c *Config) {
			if f.Rules != nil {
				c.Rules = slices.Clone(*f.Rules)
			}
		},
	},
	floatOpt("threshold", 0, maxWeight, func(f *Fragment) **float64 { return &f.Threshold }, func(c *Config) *float64 { return &c.Threshold }),
	namesOpt("pinned", func(f *Fragment) **[]string { return &f.Pinned }, func(c *Config) *[]string { return &c.Pinned }),
	intOpt("minKeep", 0, maxCount, func(f *Fragment) **int { return &f.MinKeep }, func(c *Config) *int { return &c.MinKeep }),
	intOpt("maxKeep", 0, maxCount, func(f *Fragment) **int { return &f.MaxKeep }, func(c *Config) *int { return &c.MaxKeep }),
	boolOpt("evictOnSkillLoad", func(f *Fragment) **bool { return &f.EvictOnSkillLoad }, func(c *Config) *bool { return &c.EvictOnSkillLoad }),
	boolOpt("blockDirectSkillReads", func(f *Fragment) **bool { return &f.BlockDirectSkillReads }, func(c *Config) *bool { return &c.BlockDirectSkillReads }),
	boolOpt("archiveResources", func(f *Fragment) **bool { return &f.ArchiveResources }, func(c *Config) *bool { return &c.ArchiveResources }),
	boolOpt("verbose", func(f *Fragment) **bool { return &f.Verbose }, func(c *Config) *bool { return &c.Verbose }),
	{
		key: "models",
		decode: func(raw json.RawMessage, f *Fragment) string {
			switch t := firstByte(raw); t {
			case '{':
				f.Models = slices.Clone(raw)
				return ""
			case 'n':
				f.Models = json.RawMessage("null")
				return ""
			default:
				return "must be an object (model tiers) or null, got " + describe(raw)
			}
		},
		apply: func(f *Fragment, c *Config) {
			if f.Models != nil {
				c.Models = slices.Clone(f.Models)
				c.ModelsFile, c.ModelsLine = f.ModelsFile, f.ModelsLine
			}
		},
	},
	boolOpt("skipOnShortPrompts", func(f *Fragment) **bool { return &f.SkipOnShortPrompts }, func(c *Config) *bool { return &c.SkipOnShortPrompts }),
	intOpt("minScorablePromptLength", 0, maxCount, func(f *Fragment) **int { return &f.MinScorablePromptLength }, func(c *Config) *int { return &c.MinScorablePromptLength }),
	floatOpt("topicChangeThreshold", 0, 1, func(f *Fragment) **float64 { return &f.TopicChangeThreshold }, func(c *Config) *float64 { return &c.TopicChangeThreshold }),
	boolOpt("trustProjectConfig", func(f *Fragment) **bool { return &f.TrustProjectConfig }, func(c *Config) *bool { return &c.TrustProjectConfig }),
	{
		key:    "cacheAware",
		decode: nil, // decodeCacheAware, called from Parse (it reports per-field keys)
		apply: func(f *Fragment, c *Config) {
			if f.CacheAware != nil {
				c.CacheAware = *f.CacheAware
			}
		},
	},
	{
		key:    "dedupe",
		decode: decodeDedupe,
		apply: func(f *Fragment, c *Config) {
			if f.Dedupe != nil {
				c.Dedupe = *f.Dedupe
			}
		},
	},
	{
		key:    "compaction",
		decode: nil, // decodeCompaction, called from Parse (it reports per-field keys)
		apply: func(f *Fragment, c *Config) {
			if f.Compaction != nil {
				c.Compaction = *f.Compaction
			}
		},
	},
}

var optionByKey = map[string]int{}

func init() {
	for i, o := range options {
		optionByKey[o.key] = i
	}
}

// Keys returns every option key, in documentation order.
func Keys() []string {
	ks := make([]string, len(options))
	for i, o := range options {
		ks[i] = o.key
	}
	return ks
}

func (f Fragment) apply(c *Config) {
	for _, o := range options {
		o.apply(&f, c)
	}
}

// Parse reads one configuration file's bytes; file names it in
// diagnostics. When any diagnostic is an Error the file is ignored as a
// whole and the returned Fragment is empty; warnings (an unknown key, an
// empty file) leave the rest of the file in force. Parse never panics.
func Parse(data []byte, file string) (Fragment, []Diagnostic) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lines := newLineIndex(data)
	diag := func(sev Severity, off int64, key, msg string) Diagnostic {
		return Diagnostic{File: file, Line: lines.line(off), Key: key, Severity: sev, Message: msg}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Fragment{}, []Diagnostic{diag(Warning, -1, "", "the file is empty; nothing is configured by it")}
	}
	keys, err := scanKeys(data)
	if err != nil {
		return Fragment{}, []Diagnostic{syntaxDiagnostic(err, data, file, lines)}
	}
	var ds []Diagnostic
	if keys == nil {
		return Fragment{}, []Diagnostic{diag(Error, 0, "", "the file must hold one JSON object ({...}), got "+describe(bytes.TrimSpace(data))+"; the file is ignored")}
	}
	var f Fragment
	for _, k := range keys {
		if k.dup {
			ds = append(ds, diag(Warning, k.off, k.name, "the key appears more than once; the last value is used"))
		}
	}
	for _, k := range lastOfEach(keys) {
		if k.name == "$schema" {
			continue
		}
		i, ok := optionByKey[k.name]
		if !ok {
			msg := "unknown key, ignored"
			if s := suggest(k.name); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			ds = append(ds, diag(Warning, k.off, k.name, msg))
			continue
		}
		if k.name == "rules" {
			for _, e := range decodeRules(k.raw, &f) {
				ds = append(ds, diag(e.sev, k.off, e.key, e.msg))
			}
			continue
		}
		if k.name == "cacheAware" {
			for _, e := range decodeCacheAware(k.raw, &f) {
				ds = append(ds, diag(e.sev, k.off, e.key, e.msg))
			}
			continue
		}
		if k.name == "compaction" {
			for _, e := range decodeCompaction(k.raw, &f) {
				ds = append(ds, diag(e.sev, k.off, e.key, e.msg))
			}
			continue
		}
		if msg := options[i].decode(k.raw, &f); msg != "" {
			ds = append(ds, diag(Error, k.off, k.name, msg))
		}
		if k.name == "models" {
			f.ModelsFile, f.ModelsLine = file, lines.line(k.voff)
		}
	}
	for _, d := range ds {
		if d.Severity == Error {
			ds = append(ds, Diagnostic{File: file, Severity: Error, Message: "the file is ignored as a whole because of the errors above; the other configuration files still apply"})
			return Fragment{}, ds
		}
	}
	return f, ds
}

// key is one top-level key of the file, with its raw value.
type key struct {
	name string
	raw  json.RawMessage
	off  int64 // byte offset of the key
	voff int64 // byte offset of its value
	dup  bool  // an earlier key had the same name
}

// scanKeys splits a JSON object into its top-level keys, in order. It
// returns nil keys and no error when the document is valid JSON but not an
// object.
func scanKeys(data []byte) ([]key, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		// Valid JSON of another kind? Check the rest parses.
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		return nil, nil
	}
	keys := []key{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		off := dec.InputOffset() - 1 // the key's closing quote
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		voff := dec.InputOffset() - int64(len(raw))
		keys = append(keys, key{name: name, raw: raw, off: off, voff: voff, dup: seen[name]})
		seen[name] = true
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, &json.SyntaxError{Offset: dec.InputOffset()}
		}
		return nil, err
	}
	return keys, nil
}

func lastOfEach(keys []key) []key {
	last := map[string]int{}
	for i, k := range keys {
		last[k.name] = i
	}
	var out []key
	for i, k := range keys {
		if last[k.name] == i {
			out = append(out, k)
		}
	}
	return out
}

func syntaxDiagnostic(err error, data []byte, file string, lines lineIndex) Diagnostic {
	d := Diagnostic{File: file, Severity: Error}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		d.Line = lines.line(se.Offset - 1)
		msg := err.Error()
		if strings.HasPrefix(msg, "invalid character '/'") {
			msg += " (JSON has no comments)"
		}
		if msg == "" || strings.HasPrefix(msg, "json: ") {
			msg = "trailing text after the JSON object"
		}
		d.Message = "not valid JSON: " + msg + "; the file is ignored"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		d.Line = lines.line(int64(len(data)) - 1)
		d.Message = "not valid JSON: the file ends before the object is closed; the file is ignored"
	default:
		d.Message = "not valid JSON: " + err.Error() + "; the file is ignored"
	}
	return d
}

// lineIndex maps byte offsets to 1-based lines.
type lineIndex []int64 // offsets of line starts

func newLineIndex(data []byte) lineIndex {
	li := lineIndex{0}
	for i, b := range data {
		if b == '\n' {
			li = append(li, int64(i+1))
		}
	}
	return li
}

func (li lineIndex) line(off int64) int {
	if off < 0 {
		return 0
	}
	return sort.Search(len(li), func(i int) bool { return li[i] > off })
}

func firstByte(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// describe names the JSON type of raw for messages, quoting short values.
func describe(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	show := string(raw)
	if len(show) > 40 {
		show = show[:37] + "..."
	}
	switch firstByte(raw) {
	case '"':
		return "the string " + show
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return show
	case 'n':
		return "null"
	case 0:
		return "nothing"
	default:
		return "the number " + show
	}
}

func boolOpt(k string, fp func(*Fragment) **bool, cp func(*Config) *bool) option {
	return option{
		key: k,
		decode: func(raw json.RawMessage, f *Fragment) string {
			v, msg := decodeBool(raw)
			if msg == "" {
				*fp(f) = &v
			}
			return msg
		},
		apply: func(f *Fragment, c *Config) {
			if p := *fp(f); p != nil {
				*cp(c) = *p
			}
		},
	}
}

// decodeBool accepts JSON true or false only.
func decodeBool(raw json.RawMessage) (bool, string) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, ""
	case "false":
		return false, ""
	}
	return false, "must be true or false, got " + describe(raw)
}

// decodeWhole is decodeNumber for a whole number.
func decodeWhole(raw json.RawMessage, lo, hi float64) (int, string) {
	v, msg := decodeNumber(raw, lo, hi)
	if msg == "" && v != math.Trunc(v) {
		msg = fmt.Sprintf("must be a whole number, got %s", fmtNum(v))
	}
	return int(v), msg
}

// decodeNumber accepts a JSON number only, finite and within [lo, hi].
func decodeNumber(raw json.RawMessage, lo, hi float64) (float64, string) {
	t := bytes.TrimSpace(raw)
	if c := firstByte(t); c != '-' && (c < '0' || c > '9') {
		return 0, fmt.Sprintf("must be a number from %s to %s, got %s", fmtNum(lo), fmtNum(hi), describe(raw))
	}
	v, err := strconv.ParseFloat(string(t), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Sprintf("the number %s is out of range (%s to %s)", string(t), fmtNum(lo), fmtNum(hi))
	}
	if v < lo || v > hi {
		what := "too large"
		if v < lo {
			what = "too small"
			if v < 0 && lo == 0 {
				what = "negative"
			}
		}
		return 0, fmt.Sprintf("%s is %s: it must be from %s to %s", string(t), what, fmtNum(lo), fmtNum(hi))
	}
	return v, ""
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func intOpt(k string, lo, hi int, fp func(*Fragment) **int, cp func(*Config) *int) option {
	return option{
		key: k,
		decode: func(raw json.RawMessage, f *Fragment) string {
			n, msg := decodeWhole(raw, float64(lo), float64(hi))
			if msg != "" {
				return strings.Replace(msg, "a number", "a whole number", 1)
			}
			*fp(f) = &n
			return ""
		},
		apply: func(f *Fragment, c *Config) {
			if p := *fp(f); p != nil {
				*cp(c) = *p
			}
		},
	}
}

func floatOpt(k string, lo, hi float64, fp func(*Fragment) **float64, cp func(*Config) *float64) option {
	return option{
		key: k,
		decode: func(raw json.RawMessage, f *Fragment) string {
			v, msg := decodeNumber(raw, lo, hi)
			if msg != "" {
				return msg
			}
			*fp(f) = &v
			return ""
		},
		apply: func(f *Fragment, c *Config) {
			if p := *fp(f); p != nil {
				*cp(c) = *p
			}
		},
	}
}

func decodeString(raw json.RawMessage, s *string) string {
	if firstByte(raw) != '"' {
		return "must be a string, got " + describe(raw)
	}
	if err := json.Unmarshal(raw, s); err != nil {
		return "must be a string: " + err.Error()
	}
	return ""
}

// decodeNames accepts a list of non-empty strings (skill names).
func decodeNames(raw json.RawMessage) ([]string, string) {
	if firstByte(raw) != '[' {
		return nil, "must be a list of skill names, got " + describe(raw)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, "must be a list of skill names: " + err.Error()
	}
	names := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if msg := decodeString(it, &s); msg != "" {
			return nil, fmt.Sprintf("item %d %s", i, msg)
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, fmt.Sprintf("item %d is an empty skill name", i)
		}
		names = append(names, s)
	}
	return names, ""
}

func namesOpt(k string, fp func(*Fragment) **[]string, cp func(*Config) *[]string) option {
	return option{
		key: k,
		decode: func(raw json.RawMessage, f *Fragment) string {
			names, msg := decodeNames(raw)
			if msg != "" {
				return msg
			}
			*fp(f) = &names
			return ""
		},
		apply: func(f *Fragment, c *Config) {
			if p := *fp(f); p != nil {
				*cp(c) = slices.Clone(*p)
			}
		},
	}
}

type ruleProblem struct {
	sev Severity
	key string
	msg string
}

// decodeRules reads the `rules` list: objects {skillName, keywords,
// weight?}. A bad element is an error (the file is ignored); an unknown
// key inside an element is a warning.
func decodeRules(raw json.RawMessage, f *Fragment) []ruleProblem {
	if firstByte(raw) != '[' {
		return []ruleProblem{{Error, "rules", "must be a list of {skillName, keywords, weight?} objects, got " + describe(raw)}}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return []ruleProblem{{Error, "rules", "must be a list of rule objects: " + err.Error()}}
	}
	var probs []ruleProblem
	out := make([]Rule, 0, len(items))
	for i, it := range items {
		at := fmt.Sprintf("rules[%d]", i)
		if firstByte(it) != '{' {
			probs = append(probs, ruleProblem{Error, at, "must be an object {skillName, keywords, weight?}, got " + describe(it)})
			continue
		}
		keys, err := scanKeys(it)
		if err != nil {
			probs = append(probs, ruleProblem{Error, at, "not a valid object: " + err.Error()})
			continue
		}
		r := Rule{Weight: 1}
		var haveName, haveKeywords bool
		for _, k := range lastOfEach(keys) {
			switch k.name {
			case "skillName":
				if msg := decodeString(k.raw, &r.SkillName); msg != "" {
					probs = append(probs, ruleProblem{Error, at + ".skillName", msg})
					continue
				}
				r.SkillName = strings.TrimSpace(r.SkillName)
				if r.SkillName == "" {
					probs = append(probs, ruleProblem{Error, at + ".skillName", "must name a skill, got an empty string"})
					continue
				}
				haveName = true
			case "keywords":
				kws, msg := decodeNames(k.raw)
				if msg != "" {
					probs = append(probs, ruleProblem{Error, at + ".keywords", strings.Replace(msg, "skill names", "keywords", 1)})
					continue
				}
				if len(kws) == 0 {
					probs = append(probs, ruleProblem{Error, at + ".keywords", "must hold at least one keyword"})
					continue
				}
				r.Keywords = kws
				haveKeywords = true
			case "weight":
				v, msg := decodeNumber(k.raw, 0, maxWeight)
				if msg != "" {
					probs = append(probs, ruleProblem{Error, at + ".weight", msg})
					continue
				}
				if v == 0 {
					probs = append(probs, ruleProblem{Error, at + ".weight", "must be above 0 (a rule of weight 0 never keeps anything)"})
					continue
				}
				r.Weight = v
			default:
				probs = append(probs, ruleProblem{Warning, at + "." + k.name, "unknown key in a rule, ignored (a rule has skillName, keywords and weight)"})
			}
		}
		if !haveName && !hasKey(keys, "skillName") {
			probs = append(probs, ruleProblem{Error, at, "has no skillName"})
		}
		if !haveKeywords && !hasKey(keys, "keywords") {
			probs = append(probs, ruleProblem{Error, at, "has no keywords"})
		}
		out = append(out, r)
	}
	f.Rules = &out
	return probs
}

func hasKey(keys []key, name string) bool {
	for _, k := range keys {
		if k.name == name {
			return true
		}
	}
	return false
}

// suggest returns the option key closest to an unknown one (case-insensitive
// equality or an edit distance of at most 2), or "".
func suggest(name string) string {
	best, bestD := "", 3
	for _, o := range options {
		if strings.EqualFold(o.key, name) {
			return o.key
		}
		if d := editDistance(strings.ToLower(o.key), strings.ToLower(name)); d < bestD {
			best, bestD = o.key, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
