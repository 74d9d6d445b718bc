package session

import (
	"context"
	"fmt"
	"image"
	"slices"
	"sync"
	"time"

	"strata/field"
	"strata/landscape"
	"strata/recovery"
	"strata/stack"
)

// The recovery copy (docs/design.md "Recovery", docs/editor.md "Crash recovery"). While a
// landscape is open and modified, a goroutine of the session keeps a copy of the document under
// Options.Recovery: after every history step it writes the stack when it changed, the channel
// list when it changed, and the 64² blocks of the height, channels and holes that field edits
// touched since the last write, as one journal record appended with an fsync — within the time
// a pass takes to finish, far inside the 2 s. Now and then (the journal four times the
// state, and 64 MiB more) the journal is written again whole. A clean Close, a save with nothing
// after it, and undoing back to the saved state remove the copy: the landscape's base then is
// the document.

// recoveryBase is where the open landscape came from, as a recovery copy records it (set by
// every open; a save with nothing after it makes the saved container the base).
type recoveryBase struct {
	meta recovery.Meta
	// inline: nothing reloads the base (an assembled landscape): the first record holds the
	// whole field.
	inline bool
}

// RecoveryInfo is what a recovery write did (Options.OnRecovery).
type RecoveryInfo struct {
	// ID is the copy's id (`strata recover ID`), "" when none is kept (the document is its
	// base: saved, or undone back to it).
	ID string
	// Steps is the history steps the copy holds; Full says the journal was written whole.
	Steps int
	Full  bool
	Err   error
}

// recoveryCompactMin is the journal size below which it is never rewritten whole.
var recoveryCompactMin int64 = 64 << 20

// recoverer keeps the open landscape's recovery copy.
type recoverer struct {
	s    *Session
	root string
	kick chan struct{}
	quit chan struct{}
	done chan struct{}

	// mu serializes writes, resets and the end. It is taken before pipeline.passMu (and so
	// before everything the session locks), never under any of them.
	mu sync.Mutex
	w  *recovery.Writer
	// gen is the document base generation the state below belongs to (Session.doc.recGen).
	gen uint64
	// known are the channels the copy's list has; fresh those that start from zeros rather
	// than from the base; ever the blocks written since the journal was last written whole.
	known     map[string]bool
	fresh     map[string]bool
	ever      map[string]map[image.Point]bool
	lastStack *stack.Stack
	lastSteps int
	// failing is set after a write failed (its notice given once, until a write succeeds);
	// forceFull makes the next record whole (the failed one's channel list and blocks are not
	// in the journal).
	failing   bool
	forceFull bool

	// dmu guards dirty and appeared (the worker marks them while it applies field edits): a leaf
	// lock, taken under passMu and s.mu alike and taking nothing.
	dmu      sync.Mutex
	dirty    map[string]map[image.Point]bool
	appeared map[string]bool
}

func newRecoverer(s *Session, root string) *recoverer {
	r := &recoverer{s: s, root: root, kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
		dirty: map[string]map[image.Point]bool{}, appeared: map[string]bool{}}
	go r.run()
	return r
}

func (r *recoverer) run() {
	defer close(r.done)
	for {
		select {
		case <-r.quit:
			return
		case <-r.kick:
			r.flush()
		}
	}
}

// step asks for a write of the document as it is after a history step (never blocks).
func (r *recoverer) step() {
	if r == nil {
		return
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// stop ends the goroutine and removes the copy (a clean close).
func (r *recoverer) stop() {
	if r == nil {
		return
	}
	close(r.quit)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil {
		r.w.Remove()
		r.w = nil
	}
}

// marked records that a field edit changed rect (height texels) of target. passMu is held (the
// worker, or a holder of passMu applying queued edits).
func (r *recoverer) marked(op fieldOp, c fieldChange, w, h int) {
	if r == nil {
		return
	}
	r.dmu.Lock()
	defer r.dmu.Unlock()
	if sc, ok := op.(*setChannelOp); ok {
		// A channel made (or made again): its non-zero blocks are written at the next write.
		r.appeared[sc.name] = true
		return
	}
	t := recoveryTarget(c.target)
	markBlocks(r.dirty, t, c.rect, w, h)
}

// clearDirty forgets the marks (a new landscape, or a saved one: the base is the document).
func (r *recoverer) clearDirty() {
	if r == nil {
		return
	}
	r.dmu.Lock()
	r.dirty, r.appeared = map[string]map[image.Point]bool{}, map[string]bool{}
	r.dmu.Unlock()
}

func markBlocks(m map[string]map[image.Point]bool, target string, rect image.Rectangle, w, h int) {
	rect = rect.Intersect(image.Rect(0, 0, w, h))
	if rect.Empty() {
		return
	}
	set := m[target]
	if set == nil {
		set = map[image.Point]bool{}
		m[target] = set
	}
	for bj := rect.Min.Y / undoBlock; bj <= (rect.Max.Y-1)/undoBlock; bj++ {
		for bi := rect.Min.X / undoBlock; bi <= (rect.Max.X-1)/undoBlock; bi++ {
			set[image.Pt(bi, bj)] = true
		}
	}
}

// recoveryTarget is a brush target's name in the journal.
func recoveryTarget(target string) string {
	if target == HolesTarget {
		return recovery.Holes
	}
	return target
}

// flush writes the document's changes since the last write (or discards the copy when the
// document is its base again). It reports to Options.OnRecovery.
func (r *recoverer) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	info, ok := r.write()
	if !ok {
		return
	}
	s := r.s
	if info.Err != nil && !r.failing {
		r.failing = true
		s.emit(Event{Kind: EventError, Err: fmt.Errorf("%w — edits since then would be lost in a crash; save to keep them", info.Err)})
	} else if info.Err == nil {
		r.failing = false
	}
	if f := s.opts.OnRecovery; f != nil {
		f(info)
	}
}

// write is flush's work with r.mu held; ok false when there was nothing to do.
func (r *recoverer) write() (info RecoveryInfo, ok bool) {
	s, p := r.s, r.s.pipe
	p.passMu.Lock()
	s.mu.Lock()
	if !s.doc.loaded || s.closed || p.gestureActive() {
		// A gesture's end is a step of its own and writes then.
		s.mu.Unlock()
		p.passMu.Unlock()
		return info, false
	}
	// The document and the edits queued up to it are taken together: a step the artist takes
	// while this write applies them (its channel list changed at once, its field edit queued
	// after these) belongs to the next write, so the list written always matches the field read.
	ops, st := p.takeOps(), s.doc.stack
	doc := s.doc
	position := len(s.hist.done) + s.hist.dropped
	label := ""
	if o := s.hist.top(); o != nil {
		label = o.label()
	}
	s.mu.Unlock()
	p.applyFieldOps(ops, st) // what the artist sees, as a save does
	var removed error
	wasKept := r.w != nil
	if doc.recGen != r.gen {
		// A new landscape, or the saved container became the base: the old copy goes.
		if r.w != nil {
			removed = r.w.Remove()
			r.w = nil
		}
		r.gen = doc.recGen
		r.known = map[string]bool{}
		r.fresh = map[string]bool{}
		r.ever = map[string]map[image.Point]bool{}
		for _, c := range doc.recBase.meta.Channels {
			r.known[c] = true
		}
		r.lastStack = nil
	}
	if !doc.modified {
		// The document is its base (saved, or undone back to it): nothing to recover.
		r.clearDirty()
		p.passMu.Unlock()
		if !wasKept {
			return info, false
		}
		err := removed
		if r.w != nil {
			err = r.w.Remove()
			r.w = nil
		}
		r.known = map[string]bool{}
		for _, c := range doc.channels {
			r.known[c] = true
		}
		r.fresh, r.ever, r.lastStack = map[string]bool{}, map[string]map[image.Point]bool{}, nil
		return RecoveryInfo{Steps: doc.steps, Err: err}, true
	}
	r.dmu.Lock()
	dirty, appeared := r.dirty, r.appeared
	r.dirty, r.appeared = map[string]map[image.Point]bool{}, map[string]bool{}
	r.dmu.Unlock()

	s.fmu.RLock()
	l := s.land
	w, h := l.Field.Height.W, l.Field.Height.H
	rec := &recovery.Record{Time: s.now(), Steps: doc.steps, Position: position, Label: label}
	first := r.w == nil
	if first && doc.recBase.inline {
		markBlocks(dirty, "", image.Rect(0, 0, w, h), w, h)
	}
	// The channel list: those that appeared (or were made again) start from zeros and carry
	// their non-zero blocks; those that went take their blocks with them.
	chChanged := false
	appearedNow := map[string]bool{}
	for _, c := range doc.channels {
		if !r.known[c] || appeared[c] {
			chChanged = true
			appearedNow[c] = true
			r.known[c], r.fresh[c] = true, true
			delete(r.ever, c)
			dirty[c] = nonZeroBlocks(l.Field.Channels[c], w, h)
		}
	}
	for c := range r.known {
		if !slices.Contains(doc.channels, c) {
			chChanged = true
			delete(r.known, c)
			delete(r.fresh, c)
			delete(r.ever, c)
			delete(dirty, c)
		}
	}
	// Marks of a channel the list does not have (made and undone between two writes, so never
	// known): its blocks have no place in the copy, whose reader refuses them.
	for t := range dirty {
		if t != "" && t != recovery.Holes && !slices.Contains(doc.channels, t) {
			delete(dirty, t)
		}
	}
	if first && doc.recBase.inline && l.Holes != nil {
		dirty[recovery.Holes] = nonZeroHoles(l.Holes, w, h)
	}
	for t, set := range dirty {
		e := r.ever[t]
		if e == nil {
			e = map[image.Point]bool{}
			r.ever[t] = e
		}
		for k := range set {
			e[k] = true
		}
	}
	var size int64
	for _, set := range r.ever {
		size += int64(len(set)) * 4 * undoBlock * undoBlock
	}
	rec.Full = first || r.forceFull || r.w.Size() > 4*size+recoveryCompactMin
	blocks := dirty
	if rec.Full {
		blocks = r.ever
	}
	for _, t := range sortedTargets(blocks) {
		for _, k := range sortedKeys(blocks[t]) {
			if b, ok := readRecoveryBlock(l, t, k, w, h); ok {
				rec.Blocks = append(rec.Blocks, b)
			}
		}
	}
	s.fmu.RUnlock()
	p.passMu.Unlock()

	if rec.Full || chChanged {
		rec.HasChannels = true
		rec.Channels = []recovery.Channel{}
		for _, c := range doc.channels {
			rec.Channels = append(rec.Channels, recovery.Channel{Name: c, Fresh: (rec.Full && r.fresh[c]) || (!rec.Full && appearedNow[c])})
		}
	}
	if !rec.Full && !chChanged && doc.stack == r.lastStack && len(rec.Blocks) == 0 && doc.steps == r.lastSteps {
		return info, false // a second wake-up for a step already written
	}
	if rec.Full || doc.stack != r.lastStack {
		rec.HasStack = true
		if doc.stack == nil {
			rec.NoStack = true
		} else {
			data, err := stack.Marshal(doc.stack)
			if err != nil {
				return RecoveryInfo{Err: fmt.Errorf("session: recovery copy: %w", err)}, true
			}
			rec.Stack = data
		}
	}
	if first {
		m := doc.recBase.meta
		m.Name = doc.name
		wr, err := recovery.Create(r.root, m)
		if err != nil {
			r.lostWrite(dirty)
			return RecoveryInfo{Err: err}, true
		}
		r.w = wr
	}
	if err := r.w.Append(rec); err != nil {
		r.lostWrite(dirty)
		if first {
			r.w.Remove()
			r.w = nil
		}
		return RecoveryInfo{ID: "", Err: err}, true
	}
	r.lastStack, r.forceFull, r.lastSteps = doc.stack, false, doc.steps
	return RecoveryInfo{ID: r.w.ID(), Steps: doc.steps, Full: rec.Full}, true
}

// lostWrite puts back the marks of a write that failed, so the next write carries them (and
// makes the next record whole: the journal may lack what the failed one held).
func (r *recoverer) lostWrite(dirty map[string]map[image.Point]bool) {
	r.dmu.Lock()
	for t, set := range dirty {
		markSet(r.dirty, t, set)
	}
	r.dmu.Unlock()
	r.lastStack = nil
	r.forceFull = true
}

func markSet(m map[string]map[image.Point]bool, t string, set map[image.Point]bool) {
	d := m[t]
	if d == nil {
		d = map[image.Point]bool{}
		m[t] = d
	}
	for k := range set {
		d[k] = true
	}
}

func sortedTargets(m map[string]map[image.Point]bool) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func sortedKeys(set map[image.Point]bool) []image.Point {
	out := make([]image.Point, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b image.Point) int {
		if a.Y != b.Y {
			return a.Y - b.Y
		}
		return a.X - b.X
	})
	return out
}

// readRecoveryBlock copies block k of target t (fmu held); false when the grid is gone.
func readRecoveryBlock(l *landscape.Landscape, t string, k image.Point, w, h int) (recovery.Block, bool) {
	rect := blockRect(k, w, h)
	var get func(int) float32
	switch t {
	case recovery.Holes:
		holes := l.Holes
		get = func(i int) float32 {
			if holes != nil && holes[i] {
				return 1
			}
			return 0
		}
	case "":
		get = func(i int) float32 { return l.Field.Height.Data[i] }
	default:
		g := l.Field.Channels[t]
		if g == nil {
			return recovery.Block{}, false
		}
		get = func(i int) float32 { return g.Data[i] }
	}
	return recovery.Block{Target: t, X: rect.Min.X, Y: rect.Min.Y, W: rect.Dx(), H: rect.Dy(), Data: readBlock(rect, w, get)}, true
}

// nonZeroBlocks are the blocks of g holding a value other than 0.
func nonZeroBlocks(g *field.Grid, w, h int) map[image.Point]bool {
	out := map[image.Point]bool{}
	if g == nil {
		return out
	}
	for k, v := range g.Data {
		if v != 0 {
			out[image.Pt((k%w)/undoBlock, (k/w)/undoBlock)] = true
		}
	}
	return out
}

func nonZeroHoles(holes []bool, w, h int) map[image.Point]bool {
	out := map[image.Point]bool{}
	for k, v := range holes {
		if v {
			out[image.Pt((k%w)/undoBlock, (k/w)/undoBlock)] = true
		}
	}
	return out
}

// baseFor is the recovery base of landscape l opened from base (kind, path …).
func baseFor(l *landscape.Landscape, b recovery.Base) recoveryBase {
	f := l.Field
	m := recovery.Meta{Base: b, Width: f.Height.W, Height: f.Height.H, Extent: f.Size, Origin: f.Origin,
		Resolution: l.Resolution()}
	inline := b.Kind == recovery.BaseInline
	for c := range f.Channels {
		if !inline { // an inline base has no channels: the first record carries them whole
			m.Channels = append(m.Channels, c)
		}
	}
	slices.Sort(m.Channels)
	return recoveryBase{meta: m, inline: inline}
}

// RecoveryCopy is one recovery copy as RecoveryCopies lists it (the window names its landscape,
// the time of its last step and its steps).
type RecoveryCopy = recovery.Entry

// RecoveryCopies lists the recovery copies of editors that died with unsaved work (their
// sessions are not running), newest first — what the editor offers to restore at its start.
func RecoveryCopies(root string) ([]RecoveryCopy, error) {
	all, err := recovery.List(root)
	if err != nil {
		return nil, err
	}
	var out []recovery.Entry
	for _, e := range all {
		if !e.Live && e.Err == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// OpenRecovery opens the landscape of the dead recovery copy id (under Options.Recovery) as it
// was at its last step: modified, with nothing to undo; this session goes on writing that copy.
// It must not be in use by a running editor.
func (s *Session) OpenRecovery(ctx context.Context, id string) error {
	r := s.rec
	if r == nil {
		return fmt.Errorf("session: recovery copies are off in this session")
	}
	w, st, err := recovery.Adopt(r.root, id)
	if err != nil {
		return err
	}
	l, err := st.Landscape(ctx)
	if err != nil {
		w.Release()
		return err
	}
	path := ""
	if st.Meta.Base.Kind == recovery.BaseContainer {
		path = st.Meta.Base.Path
	}
	base := recoveryBase{meta: st.Meta, inline: st.Meta.Base.Kind == recovery.BaseInline}
	var sources []string
	if path != "" {
		sources = []string{path}
	}
	if err := s.loadAfter(ctx, l, path, st.Meta.Name, sources, stepTimes{last: time.Now()}, nil, base); err != nil {
		w.Release()
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s.mu.Lock()
	s.doc.modified, s.doc.savedOK = true, false
	s.doc.steps = st.Last.Steps
	if st.Meta.Base.Kind == recovery.BaseHeightmap {
		s.doc.sources = []string{st.Meta.Base.Path}
		imp := HeightmapOptions{Size: st.Meta.Base.Size}
		if st.Meta.Base.Import != nil {
			imp.Import = *st.Meta.Base.Import
		}
		s.doc.heightImport = &imp
	}
	gen, stk := s.doc.recGen, s.doc.stack
	s.mu.Unlock()
	if r.w != nil {
		r.w.Remove()
	}
	r.w, r.gen, r.lastStack = w, gen, stk
	r.known, r.fresh, r.ever = map[string]bool{}, map[string]bool{}, map[string]map[image.Point]bool{}
	for _, c := range st.Channels {
		r.known[c.Name] = true
		if c.Fresh {
			r.fresh[c.Name] = true
		}
	}
	if st.Channels == nil {
		for _, c := range st.Meta.Channels {
			r.known[c] = true
		}
	}
	for k := range st.Blocks {
		markSet(r.ever, k.Target, map[image.Point]bool{image.Pt(k.X/undoBlock, k.Y/undoBlock): true})
	}
	s.emit(Event{Kind: EventDocument, Message: fmt.Sprintf("Restored %s as it was at %s", st.Meta.Name, st.Last.Time.Format("15:04:05"))})
	if s.watch != nil {
		s.watch.refresh()
	}
	return nil
}

// DiscardRecovery removes the dead recovery copy id (under Options.Recovery).
func (s *Session) DiscardRecovery(id string) error {
	if s.rec == nil {
		return fmt.Errorf("session: recovery copies are off in this session")
	}
	return recovery.Discard(s.rec.root, id)
}

// RecoveryID is the id of the open landscape's recovery copy ("" while none is kept).
func (s *Session) RecoveryID() string {
	if s.rec == nil {
		return ""
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if s.rec.w == nil {
		return ""
	}
	return s.rec.w.ID()
}
