package rules

import (
	"fmt"
	"strings"
	"time"
)

// Usage is the token usage a provider reported for one request: tokens
// billed as plain input, read from the prompt cache, and written to it.
// Their sum is the request's prompt.
type Usage struct {
	Input      int64 `json:"input"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// MinJudgedTokens is the smallest cached prefix, in tokens, from whose
// usage a request is judged warm or cold: providers do not cache short
// prompts at all (OpenAI below 1,024 tokens, Anthropic below 1,024 or
// 2,048 by model), so a miss on a shorter prefix says nothing of the
// lifetime.
const MinJudgedTokens = 2048

// CacheSurvived reads a request's usage: expect is the share of its
// prompt that was in the previous request and unchanged, so cached if the
// cache was warm. The request found the cache warm when it read at least
// half of that share from the cache, and cold otherwise; ok is false when
// the usage cannot tell (no prompt, or an expected prefix under
// MinJudgedTokens). Half, not all: the host's size of a request and the
// provider's tokens do not count the same things (tool definitions, the
// provider's own framing), and a cold cache reads nothing of the
// conversation, at most a system prompt shared with other sessions.
func CacheSurvived(u Usage, expect float64) (warm, ok bool) {
	total := u.Input + u.CacheRead + u.CacheWrite
	if total <= 0 || u.Input < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || !(expect > 0) {
		return false, false
	}
	want := min(expect, 1) * float64(total)
	if want < MinJudgedTokens {
		return false, false
	}
	return float64(u.CacheRead) >= want/2, true
}

// Lifetime is what a session has learned of the provider's cache lifetime
// beyond the declared one, from the usage the provider reported after
// pauses longer than it: the longest such pause after which the cache was
// still warm, and the shortest after which it was cold. It replaces the
// hedge of CacheAware.ColdConfidence where it knows better (docs/
// cache-aware.md, "Learning the lifetime from usage"). The zero value
// knows nothing.
type Lifetime struct {
	// WarmUpTo is the longest pause found warm (0: none).
	WarmUpTo time.Duration `json:"warmUpTo,omitempty"`
	// ColdFrom is the shortest pause found cold (0: none).
	ColdFrom time.Duration `json:"coldFrom,omitempty"`
	// Reports says the provider has reported a cache read in this
	// session: a provider that never does (no cache, or usage without
	// cache figures) proves nothing by reading nothing after a pause.
	Reports bool `json:"reports,omitempty"`
}

// Observe learns from the usage u of a request that came pause after the
// previous one, with expect the share of it that a warm cache would have
// served (CacheSurvived), under a declared lifetime ttl. Only pauses
// longer than ttl teach anything: within it the cache is taken as warm
// anyway, and a miss there is the provider's noise, not its lifetime. A
// finding that contradicts an earlier one (warm after a pause at least as
// long as one found cold, or the reverse) replaces it: the latest word
// wins.
func (l *Lifetime) Observe(u Usage, expect float64, pause, ttl time.Duration) {
	reported := l.Reports
	if u.CacheRead > 0 {
		l.Reports = true
	}
	if ttl <= 0 || pause <= ttl {
		return
	}
	warm, ok := CacheSurvived(u, expect)
	switch {
	case !ok:
	case warm:
		l.WarmUpTo = max(l.WarmUpTo, pause)
		if l.ColdFrom > 0 && l.ColdFrom <= pause {
			l.ColdFrom = 0
		}
	case reported:
		if l.ColdFrom == 0 || pause < l.ColdFrom {
			l.ColdFrom = pause
		}
		if l.WarmUpTo >= pause {
			l.WarmUpTo = 0
		}
	}
}

// Judge says what the session has learned of a pause d longer than the
// declared lifetime ttl: known is false when it has learned nothing that
// applies, and the hedge stands. A pause no longer than one found warm is
// warm. Once a pause was found cold, and none beyond the declared lifetime
// was found warm, the declared lifetime holds: the provider does not keep
// the cache longer (an extended retention, a host keeping it warm), so
// every pause beyond it is cold. When both were seen, a pause at least as
// long as the one found cold is cold, and one between the two stays
// hedged. why says so, for the verdicts.
func (l Lifetime) Judge(d, ttl time.Duration) (known, cold bool, why string) {
	if ttl <= 0 || d <= ttl {
		return false, false, ""
	}
	switch {
	case l.WarmUpTo >= d:
		return true, false, fmt.Sprintf("the cache was still warm after a pause of %s earlier in this session, so this pause of %s counts as warm", l.WarmUpTo.Round(time.Second), d.Round(time.Second))
	case l.ColdFrom > 0 && (l.WarmUpTo == 0 || d >= l.ColdFrom):
		return true, true, fmt.Sprintf("%s since the previous request, more than the cache lifetime of %gs, which a pause of %s earlier in this session confirmed", d.Round(time.Second), ttl.Seconds(), l.ColdFrom.Round(time.Second))
	}
	return false, false, ""
}

// Describe says what was learned, for the user ("" when nothing was).
func (l Lifetime) Describe() string {
	var parts []string
	if l.WarmUpTo > 0 {
		parts = append(parts, fmt.Sprintf("the cache was still warm after a pause of %s", l.WarmUpTo.Round(time.Second)))
	}
	if l.ColdFrom > 0 {
		parts = append(parts, fmt.Sprintf("a pause of %s found it cold", l.ColdFrom.Round(time.Second)))
	}
	return strings.Join(parts, "; ")
}
