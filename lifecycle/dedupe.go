package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// HashBody is the content hash the engine compares bodies by: SHA-256 of
// the text, in lower-case hex. The skill tool hashes the body it delivers
// (trimmed, without frontmatter); a re-attached body is hashed as sent, so
// a cut copy never matches the whole body.
func HashBody(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// VisibleCopy returns the copy of skill's body whose content hash is hash
// when the model can see it whole now: loaded with that hash, carried
// whole by the last request (BeforeRequest; a body recorded but never
// sent, such as a skill tool result that was lost, is not above), not
// archived (by the rules or by a compaction), and not due for archive (a
// due body may be replaced at the next request). A body loaded without a
// hash (a direct read, a /skill:name block) never matches, nor does an
// empty hash. Of several matching copies the latest is returned.
func (e *Engine) VisibleCopy(skill, hash string) (Body, bool) {
	if skill == "" || hash == "" {
		return Body{}, false
	}
	for i := len(e.bodies) - 1; i >= 0; i-- {
		b := e.bodies[i]
		if b.Skill == skill && !b.Archived && b.Due == nil && b.Hash == hash && e.sent[b.ID] {
			return cloneBody(b), true
		}
	}
	return Body{}, false
}

// AlreadyLoadedText is the skill tool's answer when the identical body is
// already visible: short, and naming the skill and where its body is.
func AlreadyLoadedText(skill string, b Body) string {
	where := "earlier in this conversation"
	if b.Kind == ByReattach {
		where = "in the skills re-attached after the conversation was compacted"
	}
	return fmt.Sprintf("Skill \"%s\" is already loaded: its instructions are above, %s, unchanged since. Follow them; no need to load it again.", skills.ModelText(skill), where)
}
