package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A bounded listing (issue 30). A catalogue of thousands of skills cannot
// be listed whole in the system prompt, so the bridge's section is kept
// within a budget of characters. The choice depends only on the skills
// given, their order and the budget, never on a prompt, so the section is
// byte-identical from turn to turn and session to session: first every
// description is shortened to the longest common length that fits (not
// below MinListedDescription characters); when that is not enough, skills
// are left out, the last in the order given first, except those marked
// Keep. One line after the listing then says how many are not listed and
// that the skill tool's query finds them.

// MinListedDescription is the length (in characters) below which the
// descriptions of a bounded listing are not shortened: skills are left
// out instead.
const MinListedDescription = 80

// Budgeted is one skill of a bounded listing. Keep marks a skill that is
// never left out (the entry, a pinned or declared skill).
type Budgeted struct {
	ListedSkill
	Keep bool
}

// Listing is a bounded skills section.
type Listing struct {
	Section string
	// Listed is how many skills it lists, Omitted how many it leaves out;
	// Cut is the length descriptions were shortened to (0: not shortened).
	Listed, Omitted, Cut int
}

// OmittedLine is the line after a listing that leaves n skills out.
func OmittedLine(n int) string {
	return fmt.Sprintf("\n%d more skills are not listed. To find one, call the skill tool with a query (a few words about the task) instead of a name: it answers with the best matches, which you then load by name.", n)
}

// BoundedListing renders the bridge's section for list within budget
// characters (UTF-16 code units). A budget of 0 or less, or a full
// listing that fits, gives BridgeListing of every skill. In priority
// order is the order in which skills are kept (a skill earlier in it is
// left out later); the section lists the kept ones in list's order.
// Skills marked Keep are listed even when they alone exceed the budget.
func BoundedListing(list []Budgeted, priority []int, budget int) Listing {
	all := make([]ListedSkill, len(list))
	for i, s := range list {
		all[i] = s.ListedSkill
	}
	if budget <= 0 || len(list) == 0 {
		return Listing{Section: BridgeListing(all), Listed: len(list)}
	}
	// Sizes without building the section: the fixed text, then each
	// entry's name and (shortened) description as ModelText.
	fixed := UTF16Len(BridgeIntro+"\n\n") + UTF16Len("<available_skills>\n</available_skills>")
	const perEntry = len("  <skill>\n    <name></name>\n    <description></description>\n  </skill>\n")
	names := make([]int, len(list))
	descs := make([]string, len(list))
	full := make([]int, len(list))   // the description's length, whole
	runes := make([]int, len(list))  // its length in runes
	plain := make([]bool, len(list)) // ModelText leaves it as it is
	maxDesc := 0
	for i, s := range list {
		names[i] = perEntry + UTF16Len(ModelText(s.Name))
		descs[i] = strings.TrimSpace(s.Description)
		m := ModelText(descs[i])
		full[i], runes[i], plain[i] = UTF16Len(m), utf8.RuneCountInString(descs[i]), m == descs[i]
		maxDesc = max(maxDesc, runes[i])
	}
	descLen := func(i, cut int) int {
		switch {
		case cut <= 0 || runes[i] <= cut:
			return full[i]
		case plain[i]:
			return UTF16Len(shortenHead(descs[i], cut)) + 1 // and "…"
		}
		return UTF16Len(ModelText(Shorten(descs[i], cut)))
	}
	size := func(cut int, in []bool) int {
		n := fixed
		for i := range list {
			if in == nil || in[i] {
				n += names[i] + descLen(i, cut)
			}
		}
		return n
	}
	if size(0, nil) <= budget {
		return Listing{Section: BridgeListing(all), Listed: len(list)}
	}
	render := func(cut int, in []bool) Listing {
		var out []ListedSkill
		for i, s := range list {
			if in == nil || in[i] {
				out = append(out, ListedSkill{Name: s.Name, Description: Shorten(descs[i], cut)})
			}
		}
		l := Listing{Section: BridgeListing(out), Listed: len(out), Omitted: len(list) - len(out), Cut: cut}
		if l.Omitted > 0 {
			l.Section += OmittedLine(l.Omitted)
		}
		return l
	}
	// The longest cut that fits, by bisection between the floor and the
	// longest description (size grows with the cut).
	if lo := min(MinListedDescription, maxDesc); size(lo, nil) <= budget {
		hi := maxDesc
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if size(mid, nil) <= budget {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return render(lo, nil)
	}
	// Leave skills out: keep the marked ones, then the others in priority
	// order while they fit beside the line that counts the rest.
	cut := MinListedDescription
	in := make([]bool, len(list))
	used := fixed
	for i, s := range list {
		if s.Keep {
			in[i] = true
			used += names[i] + descLen(i, cut)
		}
	}
	line := UTF16Len(OmittedLine(len(list)))
	for _, i := range priority {
		if i < 0 || i >= len(list) || in[i] {
			continue
		}
		n := names[i] + descLen(i, cut)
		if used+n+line > budget {
			continue
		}
		in[i] = true
		used += n
	}
	return render(cut, in)
}

// Shorten cuts s to at most n characters (runes), at a word boundary
// when there is one in its second half, ending with "…"; n of 0 keeps s.
func Shorten(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return shortenHead(s, n) + "…"
}

// shortenHead is what Shorten keeps of s, which is longer than n runes,
// before the "…".
func shortenHead(s string, n int) string {
	end, k := 0, 0
	for i := range s {
		if k == n-1 {
			end = i
			break
		}
		k++
	}
	head := s[:end]
	if sp := strings.LastIndexAny(head, " \t\n"); sp > len(head)/2 {
		head = head[:sp]
	}
	return strings.TrimRight(head, " \t\n,;:.")
}

// UTF16Len is the length of s in UTF-16 code units: a string's length as
// the host (JavaScript) counts it.
func UTF16Len(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i + utf16LenWide(s[i:])
		}
	}
	return len(s)
}

func utf16LenWide(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
