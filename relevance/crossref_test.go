package relevance

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCrossRefs(t *testing.T) {
	others := []Body{{Name: "b-skill"}, {Name: "c-skill"}, {Name: "d-skill"}, {Name: "plot"}}
	tests := []struct {
		name, text   string
		names, loads []string
	}{
		{"a call", "Load `b-skill` next.", []string{"b-skill"}, []string{"b-skill"}},
		{"a mention", "See b-skill for details.", []string{"b-skill"}, nil},
		{"a prohibition", "Do not load `b-skill`.", []string{"b-skill"}, nil},
		{"a prohibition wrapped over lines", "Do not\n  load `b-skill` here.", []string{"b-skill"}, nil},
		{"never load", "Never load b-skill.", []string{"b-skill"}, nil},
		{"don't use", "Don't use b-skill for this.", []string{"b-skill"}, nil},
		{"don’t use, curly apostrophe", "Don’t use b-skill.", []string{"b-skill"}, nil},
		{"avoid calling", "Avoid calling b-skill twice.", []string{"b-skill"}, nil},
		{"a list after one verb", "Load one of b-skill, c-skill or `d-skill`.",
			[]string{"b-skill", "c-skill", "d-skill"}, []string{"b-skill", "c-skill", "d-skill"}},
		{"prohibition then call after a semicolon", "Do not load b-skill; load c-skill.",
			[]string{"b-skill", "c-skill"}, []string{"c-skill"}},
		{"prohibition then call in one sentence", "Do not load b-skill, load c-skill instead.",
			[]string{"b-skill", "c-skill"}, []string{"c-skill"}},
		{"a sentence end stops the verb", "Load the data. Then b-skill plots it.", []string{"b-skill"}, nil},
		{"a blank line stops the verb", "Load the data\n\nb-skill plots it.", []string{"b-skill"}, nil},
		{"a list item stops the verb", "Load this:\n- b-skill is another option", []string{"b-skill"}, nil},
		{"too far after the verb", "Load the data with care and patience before any of the later steps that follow b-skill.",
			[]string{"b-skill"}, nil},
		{"a table cell names", "| export | `b-skill` |", []string{"b-skill"}, nil},
		{"an arrow routes", "- Export → `b-skill`", []string{"b-skill"}, []string{"b-skill"}},
		{"auto-load", "It will auto-load `c-skill`.", []string{"c-skill"}, []string{"c-skill"}},
		{"do not auto-load", "Do not auto-load `c-skill`.", []string{"c-skill"}, nil},
		{"case-insensitive", "Invoke B-Skill now.", []string{"b-skill"}, []string{"b-skill"}},
		{"possessive", "Follow b-skill's steps.", []string{"b-skill"}, nil},
		{"a path names", "Read ../b-skill/SKILL.md first.", []string{"b-skill"}, nil},
		{"a longer hyphenated word is not the name", "b-skill-extra and xb-skill", nil, nil},
		{"itself", "Load a-skill again.", nil, nil},
		{"a one-word name in prose is a word", "Plot the data, then use the plot.", nil, nil},
		{"a one-word name in backticks", "Then use `plot`.", []string{"plot"}, []string{"plot"}},
		{"a one-word name before skill", "Load the plot skill.", []string{"plot"}, []string{"plot"}},
		{"empty", "", nil, nil},
		{"binary garbage", "\xff\xfe\x00b-skill\x00", []string{"b-skill"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bodies := append([]Body{{Name: "a-skill", Text: tt.text}}, others...)
			got := CrossRefs(bodies)["a-skill"]
			want := Refs{Names: tt.names, Loads: tt.loads}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("CrossRefs(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestCrossRefsRepeatedName(t *testing.T) {
	refs := CrossRefs([]Body{
		{Name: "a-skill", Text: "load b-skill"},
		{Name: "a-skill", Text: "load c-skill"},
		{Name: "b-skill"}, {Name: "c-skill"},
	})
	if diff := cmp.Diff([]string{"b-skill"}, refs["a-skill"].Loads); diff != "" {
		t.Errorf("the first body of a name should count (-want +got):\n%s", diff)
	}
	by := LoadedBy(refs)
	if diff := cmp.Diff(map[string][]string{"b-skill": {"a-skill"}}, by); diff != "" {
		t.Errorf("LoadedBy (-want +got):\n%s", diff)
	}
}

func refsNaming(m map[string][]string) map[string]Refs {
	out := map[string]Refs{}
	for k, v := range m {
		out[k] = Refs{Names: v}
	}
	return out
}

func TestInferEntry(t *testing.T) {
	members := []string{"r", "a", "b", "c", "d"}
	tests := []struct {
		name  string
		names map[string][]string
		want  string
	}{
		{"names every other skill", map[string][]string{"r": {"a", "b", "c", "d"}, "a": {"b"}}, "r"},
		{"exactly 75%", map[string][]string{"r": {"a", "b", "c"}, "a": {"b", "c"}}, "r"},
		{"below 75%", map[string][]string{"r": {"a", "b"}}, ""},
		{"runner-up too close", map[string][]string{"r": {"a", "b", "c", "d"}, "a": {"b", "c", "d"}}, ""},
		{"runner-up at exactly 1/1.5", map[string][]string{"r": {"a", "b", "c"}, "a": {"b", "c"}, "b": {"c"}}, "r"},
		{"a tie", map[string][]string{"r": {"a", "b", "c", "d"}, "a": {"r", "b", "c", "d"}}, ""},
		{"skills outside the folder do not count", map[string][]string{"r": {"x", "y", "z", "a"}}, ""},
		{"no references", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := InferEntry(members, refsNaming(tt.names)); got != tt.want {
				t.Errorf("InferEntry = %q, want %q", got, tt.want)
			}
		})
	}
	if got := InferEntry([]string{"solo"}, refsNaming(map[string][]string{"solo": {"x"}})); got != "" {
		t.Errorf("a folder of one has no entry, got %q", got)
	}
	if got := InferEntry([]string{"a", "b"}, refsNaming(map[string][]string{"a": {"b"}})); got != "a" {
		t.Errorf("a folder of two: got %q, want a", got)
	}
}

func TestChooseEntry(t *testing.T) {
	members := []string{"r", "a", "b"}
	refs := refsNaming(map[string][]string{"r": {"a", "b"}})
	tests := []struct {
		name     string
		declared []string
		infer    bool
		want     Entry
	}{
		{"declared wins over inference", []string{"b"}, true, Entry{"b", EntryDeclared}},
		{"inferred", nil, true, Entry{"r", EntryInferred}},
		{"inference off", nil, false, Entry{}},
	}
	for _, tt := range tests {
		if got := ChooseEntry(members, refs, tt.declared, tt.infer); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func FuzzCrossRefs(f *testing.F) {
	for _, s := range []string{"Do not load `b-skill`.", "load b-skill, c-skill", "\xff-\x00b-skill", "→ =>", "`plot`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		refs := CrossRefs([]Body{{Name: "a-skill", Text: text}, {Name: "b-skill"}, {Name: "c-skill"}, {Name: "plot"}})
		r := refs["a-skill"]
		for _, l := range r.Loads {
			if !strings.Contains(" "+strings.Join(r.Names, " ")+" ", " "+l+" ") {
				t.Fatalf("loads %v not a subset of names %v", r.Loads, r.Names)
			}
		}
	})
}

// TestCueOf keeps cueOf in step with the loadVerbs and negators lists.
func TestCueOf(t *testing.T) {
	for w := range loadVerbs {
		if w == "→" || w == "=>" {
			continue // symbols, handled by the scanner itself
		}
		if cueOf([]byte(w)) != cueVerb {
			t.Errorf("cueOf(%q) is not a verb", w)
		}
	}
	for w := range negators {
		if cueOf([]byte(w)) != cueNegator {
			t.Errorf("cueOf(%q) is not a negator", w)
		}
	}
	for _, w := range []string{"", "loader", "note", "user", "x"} {
		if c := cueOf([]byte(w)); c != 0 {
			t.Errorf("cueOf(%q) = %d", w, c)
		}
	}
	for in, want := range map[string]string{"-b-skill-": "b-skill", "b-skill's": "b-skill", "’tis’": "tis", "'''": "", "a": "a"} {
		if got := trimToken(in); got != want {
			t.Errorf("trimToken(%q) = %q, want %q", in, got, want)
		}
	}
}
