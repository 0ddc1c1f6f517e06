package relbench

import (
	"os"
	"path/filepath"
	"sort"
)

// Spec says where a pack's skills and cases are.
type Spec struct {
	Name, Skills, Cases string
	// Shared is true for a pack read from ../shared beside the
	// repository (the ML pack).
	Shared bool
}

// DevPacks lists the dev packs of the repository at root: the bundled
// testdata/pack with testdata/relevance/web-cases.jsonl, every
// testdata/relevance/NAME/ holding skills/ and cases.jsonl, and, with
// shared, the ML pack of ../shared/corpora.
func DevPacks(root string, shared bool) []Spec {
	specs := []Spec{{Name: "web (testdata/pack)", Skills: filepath.Join(root, "testdata", "pack"),
		Cases: filepath.Join(root, "testdata", "relevance", "web-cases.jsonl")}}
	if shared {
		ml := filepath.Join(root, "..", "shared", "corpora", "ml-pack")
		specs = append(specs, Spec{Name: "ml (shared)", Skills: filepath.Join(ml, "skills"),
			Cases: filepath.Join(ml, "dev-cases.jsonl"), Shared: true})
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "testdata", "relevance", "*", "cases.jsonl"))
	sort.Strings(dirs)
	for _, c := range dirs {
		d := filepath.Dir(c)
		if st, err := os.Stat(filepath.Join(d, "skills")); err == nil && st.IsDir() {
			specs = append(specs, Spec{Name: filepath.Base(d), Skills: filepath.Join(d, "skills"), Cases: c})
		}
	}
	return specs
}
