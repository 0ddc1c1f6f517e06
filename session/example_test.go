package session_test

import (
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/session"
)

// Read parses a session file line by line; a bad line is a diagnostic and
// the others are read. BuildContext rebuilds the messages Pi sends for a
// branch.
func ExampleRead() {
	file := `{"type":"session","version":3,"id":"s1","cwd":"/work"}
{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"plot the churn data"}}
{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":[{"type":"text","text":"Loading the plotting skill."}]}}
{not json
`
	s, err := session.Read(strings.NewReader(file), "s1.jsonl", nil)
	if err != nil {
		panic(err)
	}
	for _, d := range s.Diagnostics {
		fmt.Println(d.Line, d.Code)
	}
	for _, m := range session.BuildContext(s.Branch(s.Leaf())) {
		fmt.Println(m.Message.Role, m.Message.Blocks[0].Text)
	}
	// Output:
	// 4 bad-json
	// user plot the churn data
	// assistant Loading the plotting skill.
}
