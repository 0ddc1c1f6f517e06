package lifecycle

import (
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// Explanation is what a user prompt would do to the loaded bodies.
type Explanation struct {
	// Decisions has one verdict per loaded name, in the order given.
	Decisions []rules.Verdict `json:"decisions"`
	// Skipped is why the prompt would not be judged at all, if so.
	Skipped *rules.Reason `json:"skipped,omitempty"`
	Entry   string        `json:"entry,omitempty"`
	// EntrySource is how the entry was found: configured, declared, inferred.
	EntrySource string `json:"entrySource,omitempty"`
}

// Explain says what happens to each of the loaded bodies (oldest first;
// a name given twice is two copies) when the user sends prompt as the
// first prompt of a session, outside any run, under cfg. It drives a fresh
// engine, so it applies exactly the rules a session would.
func Explain(cat Catalog, cfg rules.Config, loaded []string, prompt string) Explanation {
	e := New(cat, cfg)
	verdicts := make([]rules.Verdict, len(loaded))
	ids := make([]string, len(loaded))
	decided := map[string]rules.Verdict{}
	for i, name := range loaded {
		ids[i] = fmt.Sprintf("loaded-%d", i+1)
		for _, d := range e.onLoad(Load{ID: ids[i], Skill: name, Kind: ByTool}) {
			if d.Action == ActArchive || d.Action == ActDue {
				decided[d.ID] = rules.Verdict{ID: d.ID, Skill: d.Skill, Reason: *d.Reason}
			}
		}
	}
	_, c := e.promptCase(prompt)
	out := rules.JudgePrompt(c)
	for _, v := range out.Verdicts {
		decided[v.ID] = v
	}
	for i, id := range ids {
		verdicts[i] = decided[id]
		if verdicts[i].Skill == "" { // an empty name: SkillLoaded ignores it
			verdicts[i] = rules.Verdict{ID: id, Skill: loaded[i], Keep: false,
				Reason: rules.Reason{Text: "no skill name given"}}
		}
	}
	return Explanation{Decisions: verdicts, Skipped: out.Skip, Entry: e.entry, EntrySource: e.entrySrc}
}

// Preview says what prompt would do to the live bodies now, without
// changing anything (for /skills-explain): one verdict per live body,
// oldest first, judged exactly as UserPrompt would judge them.
func (e *Engine) Preview(prompt string) Explanation {
	_, c := e.promptCase(prompt)
	out := rules.JudgePrompt(c)
	return Explanation{Decisions: out.Verdicts, Skipped: out.Skip, Entry: e.entry, EntrySource: e.entrySrc}
}
