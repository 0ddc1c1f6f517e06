package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The context model: the messages of the coming request as the host
// sends them (in deltas: the leading messages unchanged since the
// previous request are not sent again), and from them the loads
// (LoadRef), their sizes and offsets in UTF-16 units, as the host counts
// them, and the replacements the host applies to its messages.

// Message is one message of the coming request, as the host holds it
// (Pi: its context hook), with only the fields the context model reads.
type Message struct {
	// Role is "user", "assistant", "toolResult" or "custom" (Pi sends a
	// custom message to the model as a user message).
	Role string `json:"role"`
	// Content is a string or a list of blocks (Block).
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	CustomType string          `json:"customType,omitempty"`
	// Timestamp is the host's (Pi: milliseconds, a number); it names a
	// /skill:name load (user:<timestamp>:<skill>).
	Timestamp json.RawMessage `json:"timestamp,omitempty"`
	Details   *MessageDetails `json:"details,omitempty"`
	// Usage and StopReason are an assistant message's: the provider's
	// usage for the request it answered.
	Usage      *UsageParams `json:"usage,omitempty"`
	StopReason string       `json:"stopReason,omitempty"`
}

// MessageDetails are the details of a message the context model reads:
// the load id the bridge gave a tool result when the tool ran, the skill
// and hash its skill tool result carries, the compaction of a re-attach
// region.
type MessageDetails struct {
	LoadID       string `json:"loadId,omitempty"`
	Skill        string `json:"skill,omitempty"`
	Hash         string `json:"hash,omitempty"`
	CompactionID string `json:"compactionId,omitempty"`
	// SkillBody is a known body found whole in another tool's result
	// (tool_result): the result is a load of kind read.
	SkillBody *SkillBody `json:"skillBody,omitempty"`
}

// SkillBody names the skill whose body a tool's result holds, and the
// hash the skill tool gives it.
type SkillBody struct {
	Skill string `json:"skill"`
	Hash  string `json:"hash,omitempty"`
}

// bodyIn is the body the sidecar found in message m's tool result, if any.
func bodyIn(m *ctxMessage) *SkillBody {
	if m.Details == nil || m.Details.SkillBody == nil || m.Details.SkillBody.Skill == "" {
		return nil
	}
	return m.Details.SkillBody
}

// Block is one content block: text, thinking, or a tool call (Name, ID,
// Arguments). Images count for nothing and need not be sent.
type Block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Name      string          `json:"name,omitempty"`
	ID        string          `json:"id,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Patch is one replacement in the host's messages: message Index gets,
// when Whole, one text block Text as its content; else, when its content
// is a string, Text as its content; else content block Block gets Text as
// its text.
type Patch struct {
	Index int    `json:"index"`
	Block int    `json:"block"`
	Whole bool   `json:"whole,omitempty"`
	Text  string `json:"text"`
}

// PatchKey names the patch of one message (and block) to drop.
type PatchKey struct {
	Index int  `json:"index"`
	Block int  `json:"block"`
	Whole bool `json:"whole,omitempty"`
}

func (p Patch) key() PatchKey { return PatchKey{p.Index, p.Block, p.Whole} }

// ctxMessage is a message held, decoded.
type ctxMessage struct {
	Message
	str    *string // the content when it is a string
	blocks []Block
	size   int64 // UTF-16 units it adds to the request
}

// found is a load found in a message: a LoadRef with its offset from the
// message's start, and where in the message it is.
type found struct {
	ref   LoadRef
	msg   int
	rel   int64
	block string // a re-attach block's text
}

// contextModel holds the messages of the last request and what was found
// in them.
type contextModel struct {
	msgs []ctxMessage
	// The scan's state after msgs[:scanned]: the loads, the names taken,
	// the read calls of the last assistant message, where it starts.
	scanned  int
	loads    []found
	names    map[string]int // load id -> loads of that id
	readArgs map[string][]json.RawMessage
	offsets  []int64        // each message's offset from the first message
	refs     []LoadRef      // the last request's loads (request)
	byID     map[string]int // load id -> its last index in loads
	// held is what the host holds: the patches last sent.
	held map[PatchKey]string
	// archive is the answer's replacements held, as the engine gave them;
	// moved says a message held changed since.
	archive []Replacement
	spare   []Replacement // the slice archive was, for the next answer's
	moved   bool
	// placed is what the host holds of the loads' places, by load id, as
	// last answered (nil: nothing, the next answer sends all with
	// PlacesReset); placedN is how many of loads it covers.
	placed  map[string]LoadPlace
	placedN int
	// index and cwd are the skills and folder the scan found loads by;
	// base the system prompt's size the offsets of refs count from.
	index *Index
	cwd   string
	base  int64
}

var (
	// skillBlock is Pi's expansion of /skill:name in a user message.
	skillBlock = regexp.MustCompile(`^<skill name="([^"]+)" location="([^"]*)">\n(?s:.*?)\n</skill>`)
	// skillContent opens a skill tool result.
	skillContent = regexp.MustCompile(`^<skill_content name="([^"]+)">`)
	// contentBlocks are the bodies of a re-attach region.
	contentBlocks = regexp.MustCompile(`<skill_content name="([^"]+)">(?s:.*?)</skill_content>`)
)

// decodeMessage reads message i's content.
func decodeMessage(m Message, i int) (ctxMessage, error) {
	cm := ctxMessage{Message: m}
	c := strings.TrimSpace(string(m.Content))
	switch {
	case c == "" || c == "null":
	case c[0] == '"':
		var s string
		if err := json.Unmarshal(m.Content, &s); err != nil {
			return cm, &ParamError{fmt.Sprintf("messages[%d].content", i), err.Error()}
		}
		cm.str = &s
	case c[0] == '[':
		if err := json.Unmarshal(m.Content, &cm.blocks); err != nil {
			return cm, &ParamError{fmt.Sprintf("messages[%d].content", i), err.Error()}
		}
	default:
		return cm, &ParamError{fmt.Sprintf("messages[%d].content", i), "neither a string nor a list of blocks"}
	}
	cm.size = cm.messageSize()
	return cm, nil
}

// messageSize is what the message adds to a request, as the bridge
// counts it: its text, thinking and tool call arguments (as JSON).
func (m *ctxMessage) messageSize() int64 {
	if m.str != nil {
		return utf16Len(*m.str)
	}
	var n int64
	for _, b := range m.blocks {
		switch {
		case b.Text != nil:
			n += utf16Len(*b.Text)
		case b.Thinking != nil:
			n += utf16Len(*b.Thinking)
		case b.Type == "toolCall":
			args := compactJSON(b.Arguments)
			n += utf16Len(b.Name) + utf16Len(args)
		}
	}
	return n
}

// compactJSON is raw as JSON.stringify writes it ({} for none). The
// bridge's JSON is compact already.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// text is the text of the message's content: a string, or its text
// blocks joined by line breaks.
func (m *ctxMessage) text() string {
	if m.str != nil {
		return *m.str
	}
	var parts []string
	for _, b := range m.blocks {
		if b.Type == "text" && b.Text != nil {
			parts = append(parts, *b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// resultID is the id of a tool result: the bridge's (details.loadId),
// else its tool call id.
func (m *ctxMessage) resultID() string {
	if m.Details != nil && m.Details.LoadID != "" {
		return m.Details.LoadID
	}
	return m.ToolCallID
}

// timestamp is the message's timestamp as JavaScript prints it, or
// fallback when it has none.
func (m *ctxMessage) timestamp(fallback int) string {
	t := strings.TrimSpace(string(m.Timestamp))
	switch {
	case t == "" || t == "null":
		return strconv.Itoa(fallback)
	case t[0] == '"':
		var s string
		if json.Unmarshal(m.Timestamp, &s) == nil {
			return s
		}
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return t
}

// update takes the host's delta: the messages from index from on. A from
// past the messages held, or below those scanned, starts the scan over.
func (c *contextModel) update(from int, msgs []Message) error {
	if from < 0 || from > len(c.msgs) {
		return &ParamError{"from", fmt.Sprintf("%d is past the %d messages held; send from 0", from, len(c.msgs))}
	}
	decoded := make([]ctxMessage, len(msgs))
	for i, m := range msgs {
		cm, err := decodeMessage(m, from+i)
		if err != nil {
			return err
		}
		decoded[i] = cm
	}
	if from == 0 {
		c.held, c.placed = nil, nil
	}
	if from < len(c.msgs) {
		c.moved = true
	}
	if from < c.scanned {
		c.rewind(from)
	}
	c.msgs = append(c.msgs[:from], decoded...)
	return nil
}

// rewind forgets the scan from message from on. The scan starts again at
// the last assistant message before it, whose read calls the results
// after it answer.
func (c *contextModel) rewind(from int) {
	a := from - 1
	for a > 0 && (c.msgs[a].Role != "assistant" || c.msgs[a].blocks == nil) {
		a--
	}
	a = max(a, 0)
	cut := len(c.loads)
	for cut > 0 && c.loads[cut-1].msg >= a {
		cut--
	}
	var shared []string // ids an earlier load has too
	for _, f := range c.loads[cut:] {
		delete(c.byID, f.ref.ID)
		if c.names[f.ref.ID]--; c.names[f.ref.ID] <= 0 {
			delete(c.names, f.ref.ID)
		} else {
			shared = append(shared, f.ref.ID)
		}
	}
	for _, id := range shared {
		for i := cut - 1; i >= 0; i-- {
			if c.loads[i].ref.ID == id {
				c.byID[id] = i
				break
			}
		}
	}
	c.loads, c.offsets, c.readArgs, c.scanned = c.loads[:cut], c.offsets[:a], nil, a
}

// scan finds the loads in the messages not scanned yet (findLoads in the
// bridge before the context model): skill tool results, full reads of a
// SKILL.md, /skill:name blocks in user messages, the bodies of re-attach
// regions, and the other files of a skill's folder the model read.
func (c *contextModel) scan(idx *Index, cwd string) {
	if c.names == nil {
		c.names, c.byID = map[string]int{}, map[string]int{}
	}
	for i := c.scanned; i < len(c.msgs); i++ {
		var off int64
		if i > 0 {
			off = c.offsets[i-1] + c.msgs[i-1].size
		}
		c.offsets = append(c.offsets, off)
		c.scanOne(i, idx, cwd)
	}
	c.scanned = len(c.msgs)
}

// nameOf is a result's id, made unique in the context ("#n").
func (c *contextModel) nameOf(m *ctxMessage) string {
	id := m.resultID()
	if c.names[id] == 0 {
		return id
	}
	for n := 2; ; n++ {
		if s := id + "#" + strconv.Itoa(n); c.names[s] == 0 {
			return s
		}
	}
}

func (c *contextModel) add(f found) {
	c.names[f.ref.ID]++
	c.byID[f.ref.ID] = len(c.loads)
	c.loads = append(c.loads, f)
}

func (c *contextModel) scanOne(i int, idx *Index, cwd string) {
	m := &c.msgs[i]
	switch {
	case m.Role == "assistant" && m.blocks != nil:
		c.readArgs = map[string][]json.RawMessage{}
		for _, b := range m.blocks {
			if b.Type == "toolCall" && b.Name == "read" {
				c.readArgs[b.ID] = append(c.readArgs[b.ID], b.Arguments)
			}
		}
	case m.Role == "toolResult" && m.ToolName == "read":
		// Taken in order whether or not the read failed.
		var raw json.RawMessage
		if q := c.readArgs[m.ToolCallID]; len(q) > 0 {
			raw, c.readArgs[m.ToolCallID] = q[0], q[1:]
		}
		if m.IsError {
			return
		}
		var args struct {
			Path   *string         `json:"path"`
			Offset json.RawMessage `json:"offset"`
			Limit  json.RawMessage `json:"limit"`
		}
		p := ""
		if json.Unmarshal(raw, &args) == nil && args.Path != nil && *args.Path != "" {
			p = resolveHostPath(*args.Path, cwd)
		}
		size := utf16Len(m.text())
		listed, folder := idx.skillFiles(p)
		if listed != "" && args.Offset == nil && args.Limit == nil {
			c.add(found{ref: LoadRef{ID: c.nameOf(m), Skill: listed, Kind: "read", Size: size}, msg: i})
			return
		}
		if b := bodyIn(m); b != nil {
			c.add(found{ref: LoadRef{ID: c.nameOf(m), Skill: b.Skill, Kind: "read", Size: size, Hash: b.Hash}, msg: i})
			return
		}
		if folder != "" {
			c.add(found{ref: LoadRef{ID: c.nameOf(m), Skill: folder, Kind: KindResource, Path: *args.Path, Size: size}, msg: i})
		}
	case m.Role == "toolResult" && !m.IsError && m.ToolName != ToolName:
		if b := bodyIn(m); b != nil {
			c.add(found{ref: LoadRef{ID: c.nameOf(m), Skill: b.Skill, Kind: "read", Size: utf16Len(m.text()), Hash: b.Hash}, msg: i})
		}
	case m.Role == "toolResult" && !m.IsError:
		text := m.text()
		sm := skillContent.FindStringSubmatch(text)
		if sm == nil {
			return
		}
		skill, hash := sm[1], ""
		if m.Details != nil {
			if m.Details.Skill != "" {
				skill = m.Details.Skill
			}
			hash = m.Details.Hash
		}
		c.add(found{ref: LoadRef{ID: c.nameOf(m), Skill: skill, Kind: "tool", Size: utf16Len(text), Hash: hash}, msg: i})
	case m.Role == "custom" && m.CustomType == ReattachType:
		if m.Details == nil || m.Details.CompactionID == "" {
			return
		}
		text := m.text()
		for _, b := range contentBlocks.FindAllStringSubmatchIndex(text, -1) {
			skill, block := text[b[2]:b[3]], text[b[0]:b[1]]
			id := "reattach:" + m.Details.CompactionID + ":" + skill
			c.add(found{ref: LoadRef{ID: id, Skill: skill, Kind: "reattach", Size: utf16Len(block)}, msg: i, rel: utf16Len(text[:b[0]]), block: block})
		}
	case m.Role == "user":
		if sm := skillBlock.FindStringSubmatch(m.text()); sm != nil {
			id := "user:" + m.timestamp(i) + ":" + sm[1]
			c.add(found{ref: LoadRef{ID: id, Skill: sm[1], Kind: "command", Size: utf16Len(sm[0])}, msg: i})
		}
	}
}

// skillFolder is the folder of a skill that is a SKILL.md, with a path
// separator at its end.
type skillFolder struct{ dir, name string }

// paths are the host's skill files by resolved path, and the folders of
// the skills that are a SKILL.md, deepest first (a skill nested in
// another's folder owns its own files).
func (c *Index) paths() (map[string]string, []skillFolder) {
	if c.pathCache != nil {
		return c.pathCache, c.folderCache
	}
	byPath := make(map[string]string, len(c.list))
	var folders []skillFolder
	for _, s := range c.list {
		p := filepath.Clean(s.Path)
		byPath[p] = s.Name
		if filepath.Base(p) == "SKILL.md" {
			folders = append(folders, skillFolder{filepath.Dir(p) + string(filepath.Separator), s.Name})
		}
	}
	// Deepest first; among equals, host order.
	slices.SortStableFunc(folders, func(a, b skillFolder) int { return len(b.dir) - len(a.dir) })
	c.pathCache, c.folderCache = byPath, folders
	return byPath, folders
}

// skillFiles says whose file the resolved path p is: listed, the skill
// the host lists at p; folder, the skill whose folder holds p (the
// deepest); "" for none.
func (c *Index) skillFiles(p string) (listed, folder string) {
	if p == "" {
		return "", ""
	}
	byPath, folders := c.paths()
	listed = byPath[p]
	for _, f := range folders {
		if strings.HasPrefix(p, f.dir) {
			return listed, f.name
		}
	}
	return listed, ""
}

// resolveHostPath resolves a path the model gave a tool as the host does:
// a leading @ dropped, ~ for the home folder, relative to cwd; symbolic
// links are not followed (the host does not).
func resolveHostPath(p, cwd string) string {
	q := strings.TrimPrefix(strings.TrimSpace(p), "@")
	if q == "~" || strings.HasPrefix(q, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			q = filepath.Join(home, q[1:])
		}
	}
	if filepath.IsAbs(q) {
		return filepath.Clean(q)
	}
	return filepath.Join(cwd, q)
}

// request is the coming request as the context model sees it: its loads
// with their offsets (base: the system prompt's size), its size, where
// the previous response starts, and the provider's usage for the
// previous request.
func (c *contextModel) request(base int64, keep int) (loads []LoadRef, total, previous int64, usage *UsageParams) {
	c.refs = slices.Grow(c.refs[:keep], len(c.loads)-keep)
	c.base = base
	for _, f := range c.loads[keep:] {
		r := f.ref
		r.Offset = base + c.offsets[f.msg] + f.rel
		c.refs = append(c.refs, r)
	}
	loads = c.refs
	total = base
	if n := len(c.msgs); n > 0 {
		total += c.offsets[n-1] + c.msgs[n-1].size
	}
	for i := len(c.msgs) - 1; i >= 0; i-- {
		m := &c.msgs[i]
		if m.Role != "assistant" {
			continue
		}
		if previous == 0 {
			previous = base + c.offsets[i]
		}
		if usage == nil && m.Usage != nil && m.StopReason != "error" && m.StopReason != "aborted" {
			usage = &UsageParams{Input: max(m.Usage.Input, 0), CacheRead: max(m.Usage.CacheRead, 0), CacheWrite: max(m.Usage.CacheWrite, 0)}
		}
		break
	}
	return loads, total, previous, usage
}

// patches are the host's messages' replacements for the archived loads
// of the request: a tool result or a read whole, a /skill: block or the
// bodies of a re-attach region within their text.
func (c *contextModel) patches(archive []Replacement) map[PatchKey]string {
	out := make(map[PatchKey]string, len(archive))
	if len(archive) == 0 {
		return out
	}
	// The texts of the messages edited within, by message: block -1 is a
	// string content.
	edited := map[int]map[int]string{}
	var order []int
	textsOf := func(mi int) map[int]string {
		if t, ok := edited[mi]; ok {
			return t
		}
		m := &c.msgs[mi]
		t := map[int]string{}
		if m.str != nil {
			t[-1] = *m.str
		} else {
			for j, b := range m.blocks {
				if b.Type == "text" && b.Text != nil {
					t[j] = *b.Text
				}
			}
		}
		edited[mi] = t
		order = append(order, mi)
		return t
	}
	for _, a := range archive {
		i, ok := c.byID[a.ID]
		if !ok {
			continue
		}
		f := &c.loads[i]
		switch f.ref.Kind {
		case "command":
			t := textsOf(f.msg)
			for _, j := range sortedKeys(t) {
				if loc := skillBlock.FindStringIndex(t[j]); loc != nil {
					t[j] = a.Placeholder + t[j][loc[1]:]
					break
				}
			}
		case "reattach":
			t := textsOf(f.msg)
			for _, j := range sortedKeys(t) {
				t[j] = strings.Replace(t[j], f.block, a.Placeholder, 1)
			}
		default:
			out[PatchKey{Index: f.msg, Whole: true}] = a.Placeholder
		}
	}
	for _, mi := range order {
		m := &c.msgs[mi]
		for j, t := range edited[mi] {
			if j == -1 {
				if t != *m.str {
					out[PatchKey{Index: mi}] = t
				}
			} else if t != *m.blocks[j].Text {
				out[PatchKey{Index: mi, Block: j}] = t
			}
		}
	}
	return out
}

// sortedKeys are t's keys in increasing order (content blocks in order).
func sortedKeys(t map[int]string) []int {
	keys := make([]int, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// changes is the change set from what the host holds to want, which it
// holds from now on.
func (c *contextModel) changes(want map[PatchKey]string, res *BeforeRequestResult) {
	for k, t := range want {
		if h, ok := c.held[k]; !ok || h != t {
			res.Set = append(res.Set, Patch{Index: k.Index, Block: k.Block, Whole: k.Whole, Text: t})
		}
	}
	for k := range c.held {
		if _, ok := want[k]; !ok {
			res.Clear = append(res.Clear, k)
		}
	}
	slices.SortFunc(res.Set, func(a, b Patch) int { return comparePatchKey(a.key(), b.key()) })
	slices.SortFunc(res.Clear, comparePatchKey)
	c.held = want
}

func comparePatchKey(a, b PatchKey) int {
	if a.Index != b.Index {
		return a.Index - b.Index
	}
	return a.Block - b.Block
}

// contextRequest is BeforeRequest for a host that sends its messages
// (Messages set): the context model finds the loads, the engine decides,
// and the answer is what changes in the host's replacements.
func (s *Session) contextRequest(p BeforeRequestParams) (BeforeRequestResult, error) {
	if len(p.Loads) > 0 {
		return BeforeRequestResult{}, &ParamError{"loads", "not with messages: the sidecar finds the loads in them"}
	}
	if s.ctx == nil {
		s.ctx = &contextModel{}
	}
	c := s.ctx
	// The loads of the previous request stay as they were when the
	// request only appends to its messages.
	keep := 0
	if p.From > 0 && p.From == len(c.msgs) && c.base == p.SystemPromptSize {
		keep = len(c.refs)
	}
	if err := c.update(p.From, p.Messages); err != nil {
		return BeforeRequestResult{}, err
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = s.src.Cwd
	}
	if c.index != s.world.Skills || c.cwd != cwd {
		// Another world or folder: what is a load may have changed.
		c.index, c.cwd = s.world.Skills, cwd
		c.scanned, c.loads, c.names, c.byID, c.readArgs, c.offsets = 0, nil, nil, nil, nil, nil
		c.moved, keep = true, 0
	}
	c.scan(c.index, cwd)
	p.Loads, p.Total, p.PreviousSize, p.PreviousUsage = c.request(p.SystemPromptSize, keep)
	p.ChangedFrom = 0
	s.archiveInto, s.keep, s.fromContext, s.archiveSame = c.spare, keep, true, false
	r, err := s.beforeRequest(p)
	s.archiveInto, s.keep, s.fromContext = nil, 0, false
	if err != nil {
		s.flat = nil
		return BeforeRequestResult{}, err
	}
	res := BeforeRequestResult{Reset: p.From == 0, Status: r.Status}
	same := s.archiveSame // r.Archive is nil then: the list is c.archive
	arch := r.Archive
	if same {
		arch = c.archive
	}
	changed := c.moved || c.held == nil || (!same && !slices.Equal(arch, c.archive))
	if p.Places {
		c.placeChanges(s.archived(), changed, &res)
	} else {
		c.placed = nil // the host drops its places when it does not ask
	}
	switch {
	case changed && !same:
		c.changes(c.patches(arch), &res)
		c.archive, c.spare, c.moved = arch, c.archive, false
	case changed:
		c.changes(c.patches(arch), &res)
		c.moved = false
	case !same:
		c.spare = arch
	}
	res.Quiet = s.Quiet()
	return res, nil
}

// placeChanges answers the places of the request's loads (those archived
// marked) that the host does not hold as they are: all of them, with
// PlacesReset, when it holds none; else those of the loads found since
// the last answer, and, when a message held or the archive changed,
// every place that changed and the ids gone (PlacesClear). A request
// that appends and archives nothing new costs what it appends.
func (c *contextModel) placeChanges(archived map[string]string, changed bool, res *BeforeRequestResult) {
	if c.placed == nil {
		c.placed, c.placedN, changed = make(map[string]LoadPlace, len(c.loads)), 0, true
		res.PlacesReset = true
	}
	start := c.placedN
	if changed || start > len(c.loads) {
		start = 0
	}
	for i := start; i < len(c.loads); i++ {
		f := &c.loads[i]
		if c.byID[f.ref.ID] != i {
			continue // a later load has the id: the host keeps one place an id
		}
		_, arch := archived[f.ref.ID]
		pl := LoadPlace{ID: f.ref.ID, Index: f.msg, Kind: f.ref.Kind, Archived: arch}
		if old, ok := c.placed[pl.ID]; !ok || old != pl {
			res.Places = append(res.Places, pl)
			c.placed[pl.ID] = pl
		}
	}
	if changed {
		for id := range c.placed {
			if _, ok := c.byID[id]; !ok {
				res.PlacesClear = append(res.PlacesClear, id)
				delete(c.placed, id)
			}
		}
		slices.Sort(res.PlacesClear)
	}
	c.placedN = len(c.loads)
}
