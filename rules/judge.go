package rules

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Ranker ranks every installed skill for a text (relevance.Index does).
type Ranker interface {
	Rank(text string, minSignal float64) relevance.Ranking
}

// PinSource says why a body is pinned.
type PinSource string

// Pin sources.
const (
	NotPinned PinSource = ""
	PinConfig PinSource = "config" // the `pinned` list
	PinUser   PinSource = "user"   // /skills-pin
	PinEntry  PinSource = "entry"  // the entry skill, with pinEntrySkill
)

// Body is one live (not archived) loaded body as the rules see it.
type Body struct {
	ID     string    `json:"id"`
	Skill  string    `json:"skill"`
	Run    int       `json:"run"`             // the run it was loaded in; 0 outside any run
	Calls  []string  `json:"calls,omitempty"` // skills this body tells the model to load
	Pinned PinSource `json:"pinned,omitempty"`
	// Due says the body was already judged to go and waits for cache-aware
	// archiving: it is judged again (and stays if now kept for relevance),
	// but it takes no place among the minKeep most recent bodies.
	Due bool `json:"due,omitempty"`
	// Size is the body's length in characters (0: unknown). With
	// cache-aware archiving, a body of at least cacheAware.largeBodyChars
	// is not kept on rank when another skill is loaded mid-run
	// (Config.LargeBody).
	Size int64 `json:"size,omitempty"`
}

// Code classifies a reason.
type Code string

// Reasons to keep a body.
const (
	KeepDisabled   Code = "disabled"     // archiving is switched off
	KeepPinned     Code = "pinned"       // pinned by config or by the user
	KeepEntry      Code = "entry"        // the entry skill, pinned by pinEntrySkill
	KeepRecent     Code = "recent"       // among the minKeep most recent
	KeepShort      Code = "short-prompt" // prompt too short to judge
	KeepSameTopic  Code = "same-topic"   // prompt on the same topic as the last judged one
	KeepNoSignal   Code = "no-signal"    // the text matches no skill well enough
	KeepRelevant   Code = "relevant"     // top topK, or ≥ relativeScore of the best
	KeepRule       Code = "rule"         // a keyword rule matched
	KeepSameRun    Code = "same-run"     // loaded in the current run
	KeepCaller     Code = "caller"       // calls the newly loaded skill (protectCallers)
	KeepLoader     Code = "loader"       // loaded just before the new skill (protectLoader)
	KeepHelperLoad Code = "helper-load"  // the new skill is a helper: nothing is evicted
	KeepReloaded   Code = "loaded-again" // the agent loaded the skill again while its due copy was still there
)

// Reasons to archive a body.
const (
	ArchiveNotRelevant Code = "not-relevant"       // at a user prompt
	ArchiveSuperseded  Code = "superseded-copy"    // a newer copy of the same skill was loaded
	ArchiveOverMaxKeep Code = "over-max-keep"      // beyond the maxKeep cap, oldest first
	ArchiveMidRun      Code = "superseded-mid-run" // another skill was loaded mid-run
	ArchiveRouted      Code = "routed"             // the entry skill has routed (cacheAware.releaseRoutedEntry)
)

// Reason is why a body stays or goes: a code, the figures behind it and a
// sentence a person can read (Text).
type Reason struct {
	Code Code `json:"code"`
	// Rank is the skill's 1-based rank for the judged text (0: no score);
	// Score its score, Best the best score, Of how many skills scored.
	Rank  int     `json:"rank,omitempty"`
	Score float64 `json:"score,omitempty"`
	Best  float64 `json:"best,omitempty"`
	Of    int     `json:"of,omitempty"`
	// By is the skill whose load caused the decision (mid-run), or the id of
	// the newer copy (superseded-copy).
	By string `json:"by,omitempty"`
	// Calls is set when the archived body itself tells the model to load By:
	// the body is a dispatcher, and By should be declared a helper.
	Calls string `json:"calls,omitempty"`
	Text  string `json:"text"`
}

func (r Reason) String() string { return r.Text }

// Verdict is the fate of one body.
type Verdict struct {
	ID     string `json:"id,omitempty"`
	Skill  string `json:"skill"`
	Keep   bool   `json:"keep"`
	Reason Reason `json:"reason"`
}

// Placeholder is the text that stands in for an archived body of skill: it
// names the skill and tells the model how to load it again. Skill text in
// it is skills.ModelText, as everywhere the model reads it.
func Placeholder(skill string) string {
	q := modelQuoted(skill)
	return fmt.Sprintf("[skill-lifecycle: the instructions of skill %s were archived to save context. If you need them again, call the skill tool: skill(%s).]", q, q)
}

// ResourcePlaceholder is what replaces a file of skill's folder (at path,
// as the model read it) archived with the skill's body.
func ResourcePlaceholder(skill, path string) string {
	if path == "" {
		return fmt.Sprintf("[skill-lifecycle: a file of skill %s was archived with the skill's instructions to save context. If you need it again, read it again.]", modelQuoted(skill))
	}
	return fmt.Sprintf("[skill-lifecycle: %s, a file of skill %s, was archived with the skill's instructions to save context. If you need it again, read it again.]", skills.ModelText(path), modelQuoted(skill))
}

// modelQuoted is skill text in double quotes for the model (ModelText, so
// it cannot close the quotes, open a tag or start a line).
func modelQuoted(s string) string { return `"` + skills.ModelText(s) + `"` }

// Superseded is the reason for archiving an older copy of a body when the
// same skill was loaded again as newerID.
func Superseded(skill, newerID string) Reason {
	return Reason{Code: ArchiveSuperseded, By: newerID,
		Text: fmt.Sprintf("superseded by a newer copy of %q (%s): only the latest copy is kept", skill, newerID)}
}

// Routed is the reason the entry skill's body becomes due once it has
// routed: to, a skill its body names, was loaded in the run that loaded it
// (CacheAware.ReleaseRoutedEntry).
func Routed(entry, to string) Reason {
	return Reason{Code: ArchiveRouted, By: to,
		Text: fmt.Sprintf("the entry skill %q has routed: %q, which its body names, was loaded in the same run", entry, to)}
}

// PromptCase is everything a user-prompt judgement looks at.
type PromptCase struct {
	Config Config
	Bodies []Body // live bodies, oldest load first
	Prompt string
	// Topic is the TopicWords of the last prompt that was judged, nil when
	// none was: the reference for the same-topic skip.
	Topic []string
	// EntrySource says how the entry skill was found ("declared",
	// "configured", "inferred"), for reasons.
	EntrySource string
	Ranker      Ranker
}

// PromptOutcome is the result of a user-prompt judgement.
type PromptOutcome struct {
	Verdicts []Verdict // one per body, in the order of PromptCase.Bodies
	// Judged is true when the prompt was judged (not skipped as short or
	// same-topic, and archiving is on); Topic is then its TopicWords, the
	// new reference for the next same-topic check.
	Judged bool
	Topic  []string
	// Skip is the reason the prompt was not judged, when it was not.
	Skip *Reason
}

// JudgePrompt decides, at a user prompt, which live bodies stay. In order:
// archiving off keeps everything; pinned bodies (config, user, entry) stay;
// the MinKeep most recently loaded stay (bodies already due for archive do
// not count among them); with SkipOnShortPrompts, a prompt
// shorter than MinScorablePromptLength characters or whose TopicOverlap with
// the last judged prompt exceeds TopicChangeThreshold is not judged; a best
// score below MinSignal evicts nothing; a body stays when its skill is in
// the TopK, scores at least RelativeScore × best, or a keyword rule scores
// at least Threshold; the rest are archived. Then, with MaxKeep > 0, the
// oldest bodies that are neither pinned nor recent are archived until at
// most MaxKeep remain (this cap applies even to skipped prompts).
func JudgePrompt(c PromptCase) PromptOutcome {
	cfg := c.Config
	out := PromptOutcome{Verdicts: make([]Verdict, len(c.Bodies)), Topic: c.Topic}
	if !cfg.Enabled {
		for i, b := range c.Bodies {
			out.Verdicts[i] = keep(b, Reason{Code: KeepDisabled, Text: "archiving is switched off"})
		}
		out.Skip = &Reason{Code: KeepDisabled, Text: "archiving is switched off"}
		return out
	}
	protected := make([]bool, len(c.Bodies))
	recent := make([]bool, len(c.Bodies))
	for i, n := len(c.Bodies)-1, 0; i >= 0 && n < cfg.MinKeep; i-- {
		if !c.Bodies[i].Due {
			recent[i] = true
			n++
		}
	}
	var open []int // bodies the prompt may judge
	for i, b := range c.Bodies {
		switch {
		case b.Pinned != NotPinned:
			out.Verdicts[i] = keep(b, pinReason(b.Pinned, c.EntrySource))
			protected[i] = true
		case recent[i]:
			out.Verdicts[i] = keep(b, Reason{Code: KeepRecent,
				Text: fmt.Sprintf("one of the %d most recently loaded bodies (minKeep)", cfg.MinKeep)})
			protected[i] = true
		default:
			open = append(open, i)
		}
	}

	// The prompt's topic words, and its words for the keyword rules, are
	// found once, and only when needed: a huge prompt costs a list of its
	// words each time.
	var topic []string
	found := false
	topicOf := func() []string {
		if !found {
			topic, found = TopicWords(c.Prompt), true
		}
		return topic
	}
	skip := promptSkip(c, topicOf)
	if skip == nil {
		out.Judged = true
		out.Topic = topicOf()
		if len(open) > 0 {
			r := rank(c.Ranker, c.Prompt, cfg.MinSignal)
			var words []string
			if rulesName(cfg.Rules, c.Bodies, open) {
				words = Words(c.Prompt)
			}
			sts := standings(r, c.Bodies, open)
			task := currentTask(c.Bodies)
			for _, i := range open {
				out.Verdicts[i] = judgeRelevance(c.Bodies[i], sts[c.Bodies[i].Skill], cfg, r, words, "the prompt", "", task[i])
			}
		}
	} else {
		out.Skip = skip
		for _, i := range open {
			out.Verdicts[i] = keep(c.Bodies[i], *skip)
		}
	}

	if cfg.MaxKeep > 0 {
		// A due body that this prompt does not take back is going anyway:
		// it does not count against the cap.
		stays := func(i int) bool {
			v := out.Verdicts[i]
			return v.Keep && (!c.Bodies[i].Due || Revives(v.Reason.Code))
		}
		kept := 0
		for i := range out.Verdicts {
			if stays(i) {
				kept++
			}
		}
		for i := 0; i < len(c.Bodies) && kept > cfg.MaxKeep; i++ {
			if protected[i] || !stays(i) {
				continue
			}
			out.Verdicts[i] = Verdict{ID: c.Bodies[i].ID, Skill: c.Bodies[i].Skill, Reason: Reason{Code: ArchiveOverMaxKeep,
				Text: fmt.Sprintf("over maxKeep (%d bodies at most; %d were kept): the oldest unprotected body goes first", cfg.MaxKeep, kept)}}
			kept--
		}
	}
	return out
}

// currentTask marks the bodies of the current task: those loaded by the
// run that loaded the latest live body not due for archive (that body
// alone when it was loaded outside any run). They stay at a prompt on the
// lower bar TaskRelativeScore: a follow-up about the same work often
// shares few words with the skill doing it, and a prompt that moves to
// another topic still drops them.
func currentTask(bodies []Body) []bool {
	task := make([]bool, len(bodies))
	for i := len(bodies) - 1; i >= 0; i-- {
		if bodies[i].Due {
			continue
		}
		run := bodies[i].Run
		task[i] = true
		for j := i - 1; run != 0 && j >= 0; j-- {
			task[j] = !bodies[j].Due && bodies[j].Run == run
		}
		break
	}
	return task
}

// Revives reports whether a keep verdict with code takes back a body that
// is due for archive (cache-aware archiving): a judgement about the body
// itself (relevant, a keyword rule, pinned, the entry, caller or loader
// protection) or archiving switched off. Not judging (a short prompt, the
// same topic, no signal, the same run, a helper's load) and recency leave
// it due.
func Revives(code Code) bool {
	switch code {
	case KeepPinned, KeepEntry, KeepRelevant, KeepRule, KeepCaller, KeepLoader, KeepDisabled, KeepReloaded:
		return true
	}
	return false
}

// rulesName reports whether a keyword rule names the skill of one of the
// bodies idx (only then are the prompt's words compared with keywords).
func rulesName(rules []Rule, bodies []Body, idx []int) bool {
	for _, r := range rules {
		for _, i := range idx {
			if r.SkillName == bodies[i].Skill {
				return true
			}
		}
	}
	return false
}

// promptSkip returns why the prompt is not judged, or nil; topic returns
// the prompt's TopicWords.
func promptSkip(c PromptCase, topic func() []string) *Reason {
	cfg := c.Config
	if !cfg.SkipOnShortPrompts {
		return nil
	}
	n := utf8.RuneCountInString(strings.TrimSpace(c.Prompt))
	if n < cfg.MinScorablePromptLength {
		return &Reason{Code: KeepShort, Text: fmt.Sprintf("short follow-up (%d characters < minScorablePromptLength %d): not judged", n, cfg.MinScorablePromptLength)}
	}
	if c.Topic != nil {
		ov := TopicOverlap(topic(), c.Topic)
		if ov > cfg.TopicChangeThreshold {
			return &Reason{Code: KeepSameTopic, Score: ov, Text: fmt.Sprintf("same topic as the last judged prompt (word overlap %.2f > topicChangeThreshold %g): not judged", ov, cfg.TopicChangeThreshold)}
		}
	}
	return nil
}

// rank ranks text with r; a nil Ranker scores nothing (no topic signal).
func rank(r Ranker, text string, minSignal float64) relevance.Ranking {
	if r == nil {
		return relevance.Ranking{}
	}
	return r.Rank(text, minSignal)
}

// standing is a skill's 1-based rank and score in a ranking (0, 0 when it
// did not score).
type standing struct {
	rank  int
	score float64
}

// standings finds the rank and score of each body's skill in one pass over
// the ranking, which may list thousands of skills.
func standings(r relevance.Ranking, bodies []Body, idx []int) map[string]standing {
	want := make(map[string]standing, len(idx))
	for _, i := range idx {
		want[bodies[i].Skill] = standing{}
	}
	left := len(want)
	for i, res := range r.Results {
		if left == 0 {
			break
		}
		if st, ok := want[res.Skill]; ok && st.rank == 0 {
			want[res.Skill] = standing{rank: i + 1, score: res.Score}
			left--
		}
	}
	return want
}

// judgeRelevance applies the no-signal, relevance and keyword-rule tests to
// one body, whose standing st is taken from a ranking r of text. what names the text in reasons ("the
// prompt", or the new skill); by is the new skill mid-run ("" at a prompt);
// task says the body is the current task's (currentTask), kept at the lower
// of RelativeScore and TaskRelativeScore.
func judgeRelevance(b Body, st standing, cfg Config, r relevance.Ranking, words []string, what, by string, task bool) Verdict {
	rank, score := st.rank, st.score
	base := Reason{Rank: rank, Score: score, Best: r.Best, Of: len(r.Results), By: by}
	if r.Best < cfg.MinSignal {
		base.Code = KeepNoSignal
		base.Text = fmt.Sprintf("%s has no topic signal (best score %s < minSignal %g): nothing is evicted for relevance", what, f2(r.Best), cfg.MinSignal)
		return keep(b, base)
	}
	rel := cfg.RelativeScore
	if task && cfg.TaskRelativeScore < rel {
		rel = cfg.TaskRelativeScore
	} else {
		task = false
	}
	cut := rel * r.Best
	// A mid-run load does not keep a large body on its rank
	// (cacheAware.largeBodyChars).
	large := by != "" && cfg.LargeBody(b.Size)
	if rank > 0 && ((!large && rank <= cfg.TopK) || score >= cut) {
		base.Code = KeepRelevant
		base.Text = fmt.Sprintf("relevant to %s: ranked #%d of %d, score %s (best %s; %s)", what, rank, len(r.Results), f2(score), f2(r.Best), keptBy(cfg, cut, large, task, b.Size))
		return keep(b, base)
	}
	if rs, ri := RuleScore(cfg.Rules, b.Skill, words); ri >= 0 && rs >= cfg.Threshold {
		base.Code = KeepRule
		base.Text = fmt.Sprintf("kept by keyword rule %d for %q: score %s ≥ threshold %g", ri, b.Skill, f2(rs), cfg.Threshold)
		return keep(b, base)
	}
	standing := "no score"
	if rank > 0 {
		standing = fmt.Sprintf("ranked #%d of %d, score %s", rank, len(r.Results), f2(score))
	}
	if by == "" {
		base.Code = ArchiveNotRelevant
		base.Text = fmt.Sprintf("not relevant to the prompt: %s (best %s; %s)", standing, f2(r.Best), keptBy(cfg, cut, large, task, b.Size))
	} else {
		base.Code = ArchiveMidRun
		base.Text = fmt.Sprintf("superseded by skill %q loaded mid-run: %s against its name and description (best %s; %s)", by, standing, f2(r.Best), keptBy(cfg, cut, large, task, b.Size))
		if slices.Contains(b.Calls, by) {
			base.Calls = by
			base.Text += fmt.Sprintf("; this body calls %q — declare metadata.role: helper in %q (or list it in helperSkills) to keep it", by, by)
		}
	}
	return Verdict{ID: b.ID, Skill: b.Skill, Keep: false, Reason: base}
}

// keptBy says, in a verdict's text, what keeps a body: its rank or its
// score against cut (the current task's lower cut when task), or its score
// alone for a large body of size characters at a mid-run load
// (cacheAware.largeBodyChars).
func keptBy(cfg Config, cut float64, large, task bool, size int64) string {
	if task {
		return fmt.Sprintf("kept: top %d or score ≥ %s, the current task's bar, taskRelativeScore %g", cfg.TopK, f2(cut), cfg.TaskRelativeScore)
	}
	if large {
		return fmt.Sprintf("kept: score ≥ %s; a body of %d characters is not kept on rank, largeBodyChars %d", f2(cut), size, cfg.CacheAware.LargeBodyChars)
	}
	return fmt.Sprintf("kept: top %d or score ≥ %s", cfg.TopK, f2(cut))
}

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

func keep(b Body, r Reason) Verdict { return Verdict{ID: b.ID, Skill: b.Skill, Keep: true, Reason: r} }

func pinReason(p PinSource, entrySource string) Reason {
	switch p {
	case PinEntry:
		src := entrySource
		if src == "" {
			src = "declared"
		}
		return Reason{Code: KeepEntry, Text: fmt.Sprintf("the entry skill (%s), pinned by pinEntrySkill", src)}
	case PinUser:
		return Reason{Code: KeepPinned, Text: "pinned with /skills-pin"}
	default:
		return Reason{Code: KeepPinned, Text: "pinned by the configuration (pinned)"}
	}
}

// LoadCase is everything a mid-run judgement looks at: a skill was loaded
// while an agent run was in progress.
type LoadCase struct {
	Config Config
	Bodies []Body // the other live bodies, oldest load first
	// New is the body just loaded; NewText is its skill's name and
	// description, the text the others are judged against.
	New     Body
	NewText string
	// NewHelper says why the new skill is a helper ("metadata.role: helper"
	// or "helperSkills"); "" when it is not one.
	NewHelper   string
	Run         int // the current run
	EntrySource string
	Ranker      Ranker
}

// JudgeLoad decides, when a skill is loaded mid-run (EvictOnSkillLoad),
// which of the other live bodies stay, one verdict per body in order.
// Archiving off, or a helper loaded, keeps everything; pinned bodies and
// bodies loaded in the same run stay; with ProtectCallers, bodies that tell
// the model to load the new skill stay; with ProtectLoader, the body loaded
// just before the new one stays; MinKeep does not apply. The rest are
// judged like at a prompt (no signal, TopK but not for a large body,
// RelativeScore, keyword rules)
// against NewText, and archived when not relevant to it; an archived body
// that itself calls the new skill carries the dispatcher hint.
func JudgeLoad(c LoadCase) []Verdict {
	cfg := c.Config
	vs := make([]Verdict, len(c.Bodies))
	var open []int
	for i, b := range c.Bodies {
		switch {
		case !cfg.Enabled:
			vs[i] = keep(b, Reason{Code: KeepDisabled, Text: "archiving is switched off"})
		case !cfg.EvictOnSkillLoad:
			vs[i] = keep(b, Reason{Code: KeepSameRun, Text: "evictOnSkillLoad is off: mid-run loads evict nothing"})
		case c.NewHelper != "":
			vs[i] = keep(b, Reason{Code: KeepHelperLoad, By: c.New.Skill,
				Text: fmt.Sprintf("%q is a helper (%s): loading it evicts nothing", c.New.Skill, c.NewHelper)})
		case b.Pinned != NotPinned:
			vs[i] = keep(b, pinReason(b.Pinned, c.EntrySource))
		case c.Run != 0 && b.Run == c.Run:
			vs[i] = keep(b, Reason{Code: KeepSameRun, Text: "loaded in the current run"})
		case cfg.ProtectCallers && slices.Contains(b.Calls, c.New.Skill):
			vs[i] = keep(b, Reason{Code: KeepCaller, By: c.New.Skill, Calls: c.New.Skill,
				Text: fmt.Sprintf("calls %q, which was just loaded (protectCallers)", c.New.Skill)})
		case cfg.ProtectLoader && i == len(c.Bodies)-1:
			vs[i] = keep(b, Reason{Code: KeepLoader, By: c.New.Skill,
				Text: fmt.Sprintf("loaded just before %q (protectLoader)", c.New.Skill)})
		default:
			open = append(open, i)
		}
	}
	if len(open) > 0 {
		r := rank(c.Ranker, c.NewText, cfg.MinSignal)
		words := Words(c.NewText)
		what := fmt.Sprintf("the description of %q", c.New.Skill)
		sts := standings(r, c.Bodies, open)
		for _, i := range open {
			vs[i] = judgeRelevance(c.Bodies[i], sts[c.Bodies[i].Skill], cfg, r, words, what, c.New.Skill, false)
		}
	}
	return vs
}
