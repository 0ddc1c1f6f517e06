package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Copies returns every copy of skill's body, archived or not, in load
// order (the host's "already loaded" gate looks through them).
func (e *Engine) Copies(skill string) []Body {
	list := e.bySkill[skill]
	out := make([]Body, len(list))
	for k, i := range list {
		out[k] = cloneBody(e.bodies[i])
	}
	return out
}

// HashBody is the content hash the engine compares bodies by: SHA-256 of
// the text, in lower-case hex. The skill tool hashes the body it delivers
// (trimmed, without frontmatter); a re-attached body is hashed as sent, so
// a cut copy never matches the whole body.
func HashBody(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
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
