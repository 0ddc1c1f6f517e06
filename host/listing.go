package host

import (
	"cmp"
	"path/filepath"
	"slices"
	"sync"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// The listing budget (docs/config.md, listingBudget): the skills section
// is bounded so that a catalogue of thousands of skills does not fill the
// context window. Unless the configuration sets it, the budget is
// ListingShare of the current model's context window (at CharsPerToken
// characters a token), within ListingFloor and ListingCeiling: 16,000
// characters at a 200,000-token window. Claude Code takes 1% of the window,
// Codex 2% or 8,000 characters. The window is the current model's at
// initialize, kept for the session: a model change or a reload does not move it,
// so the section changes only with the skill list and the configuration.
const (
	ListingShare         = 0.02
	ListingCharsPerToken = 4
	ListingFloor         = 8000
	ListingCeiling       = 40000
	// listingWindow is the context window assumed when the host gives
	// none for the current model.
	listingWindow = 200000
)

// ListingBudget is the budget in characters of the skills section under
// configured (the listingBudget key; 0: from the window) for a model of
// context window tokens (0: unknown).
func ListingBudget(configured, window int) int {
	if configured > 0 {
		return configured
	}
	if window <= 0 {
		window = listingWindow
	}
	b := int(float64(window) * ListingCharsPerToken * ListingShare)
	return min(max(b, ListingFloor), ListingCeiling)
}

// contextWindow is the context window of the host's current model among
// models (0: unknown).
func contextWindow(models []HostModel, current *ModelRef) int {
	if current == nil {
		return 0
	}
	for _, m := range models {
		if m.Provider == current.Provider && m.ID == current.ID {
			return m.ContextWindow
		}
	}
	return 0
}

// listing is the skills section of the system prompt within the budget
// for a context window of window tokens (ListingBudget) (skills.BoundedListing): the model-visible skills in the
// host's order. Never left out: the entry skill (configured, declared or
// inferred), pinned and helper skills, and skills that declare a role.
// Left out first: the skills named by the smallest share of their own
// folder's skills (cross-references), the later in the host's order
// among equals. The last one made is kept (a quarter of a second at
// 100,000 skills; asked again at each reload).
func (w *World) listing(window int) skills.Listing {
	m := w.listed
	if m == nil {
		return w.makeListing(window)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.l == nil || m.window != window {
		l := w.makeListing(window)
		m.l, m.window = &l, window
	}
	return *m.l
}

// listMemo is a world's last listing and the window it was made for.
type listMemo struct {
	mu     sync.Mutex
	window int
	l      *skills.Listing
}

func (w *World) makeListing(window int) skills.Listing {
	budget := ListingBudget(w.Config.ListingBudget, window)
	keep := map[string]bool{w.Config.EntrySkill: true}
	if w.Config.InferEntrySkill {
		for _, e := range w.Catalog.Inferred {
			keep[e] = true
		}
	}
	for _, n := range w.Config.Pinned {
		keep[n] = true
	}
	for _, n := range w.Config.HelperSkills {
		keep[n] = true
	}
	// A skill's weight is the share of the other skills of its folder
	// (the pack it came in) that name it: the skills a pack's own bodies
	// send the model to come first, and a small pack's before a large
	// one's equally central skills.
	// Folders by number, names by the host's index: at 100,000 skills
	// maps keyed by every name cost a second.
	hl := w.Skills.list
	folder := make([]int32, len(hl))
	ids := map[string]int32{}
	var size []int
	for i, s := range hl {
		f := filepath.Dir(filepath.Dir(s.Path))
		id, ok := ids[f]
		if !ok {
			id = int32(len(size))
			ids[f] = id
			size = append(size, 0)
		}
		folder[i] = id
		size[id]++
	}
	named := make([]int, len(hl))
	for _, s := range w.Catalog.Skills {
		if s.Role != skills.RoleNone {
			keep[s.Name] = true
		}
		si, ok := w.Skills.byName[s.Name]
		if !ok {
			continue
		}
		for _, n := range s.Names {
			if ni, ok := w.Skills.byName[n]; ok && folder[ni] == folder[si] {
				named[ni]++
			}
		}
	}
	var list []skills.Budgeted
	var weight []float64
	for i, s := range hl {
		if !s.DisableModelInvocation {
			list = append(list, skills.Budgeted{ListedSkill: skills.ListedSkill{Name: s.Name, Description: s.Description}, Keep: keep[s.Name]})
			wt := 0.0
			if n := size[folder[i]]; n > 1 {
				wt = float64(named[i]) / float64(n-1)
			}
			weight = append(weight, wt)
		}
	}
	prio := make([]int, len(list))
	for i := range prio {
		prio[i] = i
	}
	slices.SortStableFunc(prio, func(a, b int) int { return cmp.Compare(weight[b], weight[a]) })
	return skills.BoundedListing(list, prio, budget)
}

// Section is the skills section the bridge puts in the system prompt for
// a model of context window tokens (0: unknown), within the listing
// budget (listing). Replay measures it in place of Pi's own section.
func (w *World) Section(window int) string { return w.listing(window).Section }
