package host

// LoadFinder finds the loads in the messages of successive requests the
// way the sidecar does when the bridge forwards them (before_request with
// messages): the same scan, names and sizes. Replay uses it so that the
// two cannot disagree on what is a load.
type LoadFinder struct {
	c   contextModel
	idx *Index
	cwd string
}

// NewLoadFinder finds loads against the host's skills idx, resolving
// relative read paths against cwd.
func NewLoadFinder(idx *Index, cwd string) *LoadFinder {
	if idx == nil {
		idx = NewIndex(nil)
	}
	return &LoadFinder{idx: idx, cwd: cwd}
}

// FoundLoad is a load and the index of the message that carries it.
type FoundLoad struct {
	LoadRef
	Msg int
}

// Find takes the next request's messages as the host sends them (from:
// the number of leading messages unchanged since the previous call, msgs
// the messages from there on) and returns the request's loads in context
// order, with their sizes; offsets are from the first message.
func (f *LoadFinder) Find(from int, msgs []Message) ([]FoundLoad, error) {
	c := &f.c
	if err := c.update(from, msgs); err != nil {
		return nil, err
	}
	c.scan(f.idx, f.cwd)
	out := make([]FoundLoad, 0, len(c.loads))
	for _, l := range c.loads {
		r := l.ref
		r.Offset = c.offsets[l.msg] + l.rel
		out = append(out, FoundLoad{LoadRef: r, Msg: l.msg})
	}
	return out, nil
}

// ResolvePath resolves a path the model gave a tool as the host does
// (resolveHostPath): a leading @ dropped, ~ for the home folder, relative
// to cwd, links not followed.
func ResolvePath(p, cwd string) string { return resolveHostPath(p, cwd) }
