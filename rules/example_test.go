package rules_test

import (
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// Parse reads one file, Merge lays the user's and a trusted project's over
// the defaults; a typo is a warning with the closest key.
func ExampleMerge() {
	user, diags := rules.Parse([]byte(`{"topK": 5, "pinned": ["setup-workspace"]}`), "user.json")
	project, more := rules.Parse([]byte("{\n  \"minkeep\": 1,\n  \"maxKeep\": 6\n}"), "project.json")
	for _, d := range append(diags, more...) {
		fmt.Println(d)
	}
	cfg := rules.Merge(user, project, rules.Trusted)
	fmt.Println(cfg.TopK, cfg.Pinned, cfg.MinKeep, cfg.MaxKeep)
	// Output:
	// project.json:2: warning: minkeep: unknown key, ignored (did you mean "minKeep"?)
	// 5 [setup-workspace] 2 6
}

// An error in a file ignores the whole file, naming its line and key.
func ExampleParse() {
	_, diags := rules.Parse([]byte("{\n  \"enabled\": false,\n  \"topK\": \"3\"\n}"), "skill-lifecycle.json")
	for _, d := range diags {
		fmt.Println(d)
	}
	// Output:
	// skill-lifecycle.json:3: error: topK: must be a whole number from 0 to 1000000, got the string "3"
	// skill-lifecycle.json: error: the file is ignored as a whole because of the errors above; the other configuration files still apply
}
