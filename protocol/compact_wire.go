package protocol

import (
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/sourcegraph/jsonrpc2"
)

// reattachIntro opens the re-attach region sent after a compaction summary.
const reattachIntro = "[skill-lifecycle: the conversation above was compacted. These skills were in use before it and still apply; their instructions follow.]"

// sessionCompact answers session/compact: the bodies the compaction
// summarised away are archived as compacted, and those the rules still keep
// are rendered again (reattachBlock) within the re-attach budget, most
// recent first, as one region for the host to send after the summary.
func (c *call) sessionCompact() (any, *jsonrpc2.Error) {
	var p SessionCompactParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	if p.ID == "" {
		return nil, required(c.method, "id")
	}
	c.s.mu.Lock()
	cmp := lifecycle.Compaction{ID: p.ID, Visible: p.Visible, Config: c.s.world.cfg.Compaction}
	plan := c.s.eng.PlanCompaction(cmp)
	res := SessionCompactResult{Bodies: []ReattachRef{}, Plan: plan.Items}
	var blocks []string
	var sent []lifecycle.Reattach
	for _, it := range plan.Kept() {
		block, r, ok := reattachBlock(c.s.cat, it)
		if !ok {
			continue
		}
		blocks = append(blocks, block)
		sent = append(sent, r)
		res.Bodies = append(res.Bodies, ReattachRef{ID: lifecycle.ReattachID(p.ID, r.Skill), Skill: r.Skill, Size: r.Chars, Hash: r.Hash, Cut: r.Cut})
	}
	before := len(c.s.eng.Archived())
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvCompact, Compaction: &cmp, Reattached: sent})
	res.Archived = len(c.s.eng.Archived()) - before
	c.s.mu.Unlock()
	if len(blocks) > 0 {
		res.Text = reattachIntro + "\n\n" + strings.Join(blocks, "\n\n")
	}
	c.emit(ds)
	if line := reattachSummary(res); line != "" {
		c.tell("info", line)
	}
	return res, nil
}
