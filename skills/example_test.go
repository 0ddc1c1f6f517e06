package skills_test

import (
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Load parses a SKILL.md and validates it in one mode: Pi's lenient rules
// warn about a name that does not match its folder and load the skill.
func ExampleLoad() {
	data := []byte("---\nname: write-sql-migration\ndescription: Write a SQL migration that changes a table.\n---\n# Steps\n\nWrite the up and down files.\n")
	s, diags, ok := skills.Load("/pack/sql-migration/SKILL.md", data, skills.Lenient)
	fmt.Println(ok, s.Name, s.Headings[0].Text)
	for _, d := range diags {
		fmt.Println(d.Severity, d.Code)
	}
	// Output:
	// true write-sql-migration Steps
	// warning name-mismatch
}

// FormatPrompt renders the skills section of Pi's system prompt, escaping
// what the files say.
func ExampleFormatPrompt() {
	s := &skills.Skill{Name: "plot-figure", Description: "Draw <charts> & figures.", Path: "/pack/plot-figure/SKILL.md"}
	out := skills.FormatPrompt([]*skills.Skill{s})
	fmt.Println(out[strings.Index(out, "<available_skills>"):])
	// Output:
	// <available_skills>
	//   <skill>
	//     <name>plot-figure</name>
	//     <description>Draw &lt;charts&gt; &amp; figures.</description>
	//     <location>/pack/plot-figure/SKILL.md</location>
	//   </skill>
	// </available_skills>
}
