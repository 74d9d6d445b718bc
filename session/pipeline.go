package session

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"strata/field"
	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// pipeline is the one background worker that turns the newest state into weights, scatter and
// frames. Edits only mark what they dirtied and wake it; it takes the newest stack when it starts
// a pass, so a burst of slider events costs a handful of passes, never a queue of stale ones.
//
// What it evaluates follows the view, not the field (docs/editor.md "The view first"): the pages
// of the weights pyramid the camera samples (viewport.Renderer.WeightsNeed), coarse before fine
// and nearest first, written straight into the viewport's atlas; the full-resolution tiles of
// the whole field only when populations must be placed from them, in the background behind the
// view.
//
// Locks, in the order they may be taken (never the reverse): pipeline.passMu, then
// renderLoop.gpuMu, then viewport.Renderer's own lock, then Session.fmu, then Session.mu (and
// Session.subMu alone). Session.mu is never held while calling the viewport or taking fmu.
type pipeline struct {
	s    *Session
	wake chan struct{}
	quit chan struct{}
	done chan struct{}

	// passMu is held by the worker through a pass and by Open/Save while they swap or read the
	// landscape, so neither ever sees the other half done. The outermost lock (Session's lock
	// order, at Session.subMu).
	passMu sync.Mutex

	// Guarded by Session.mu.
	drag       *dragState
	stroke     *strokeState
	fieldOps   []fieldOp
	dirty      *field.DirtySet // full-resolution weights tiles the populations need evaluated
	scatterAll bool            // every population's placement must be redone
	// respace says a stroke ended: each population's spacing may follow its maximum density
	// again. On the Go evaluator the densities are current (every tile whose weights a pass
	// evaluated had its density evaluated with them), so only a changed spacing places every
	// tile again; the GPU keeps no maximum per tile and evaluates every tile's density for it.
	respace     bool
	layersDirty bool // the viewport's layer table (tints, tiling)
	atlasDirty  bool // the atlas sheets (a layer's texture)
	// gen is the generation of the weights the newest stack gives: it moves on whenever what the
	// weights kernel would be given changes (weightsDiffer), and the viewport shows a generation
	// once its first pages are written (a picture never mixes two stacks).
	gen        uint64
	cancel     context.CancelFunc
	passIsFull bool // the running pass evaluates full-resolution tiles (cancellable by a stack edit)
	status     Status
	// viewTexels is what the last pass left of the view to evaluate (texels), for the first
	// frame's wait (passDueWithin).
	viewTexels int

	// failGPU is the test hook that makes the GPU evaluator fail from now on (a lost device).
	failGPU atomic.Bool

	// Owned by the worker (and by whoever holds passMu with the worker idle).
	mode       Evaluator // GPU or CPU, chosen at open (and CPU after a GPU failure); written under Session.mu too
	full       evaluator // the full-resolution grid, for the populations
	pages      pageEvaluator
	geo        landscape.Geometry
	nsPerTexel float64 // measured cost of the chosen evaluator; written under Session.mu (frames read it)
	fullNs     float64 // measured cost of the full-resolution tiles, per texel (0: none yet)
	pops       []*popState
	// heightBands keeps the height's range by bands of rows for the edits' range (ranges.go).
	heightBands bandRanges
	// unplaced are full-resolution tiles a pass evaluated while more were due (fullBatch): the
	// pass that evaluates the last of them places the populations on all of them.
	unplaced []field.Tile
	// evals counts the full-resolution evaluations; evaluated[i] is the count at which tile i was
	// last evaluated (early.go computes a tile's density again only when it was evaluated since).
	evals     uint64
	evaluated map[int]uint64
	wtiles    *tileCache
	geoFor    *stack.Stack // a stack with the gradient step geo was made for
	// shownGen is the weights generation the viewport shows.
	shownGen uint64
	// stale are pages of the current generation whose ground changed since they were written
	// (a painted mask, a reloaded height): written again when the view samples them.
	stale map[viewport.PageKey]bool
	// fullPasses counts passes that evaluated pages or tiles since the landscape opened.
	fullPasses int
	// heightVer counts changes of the height grid's values (scatter kernels re-upload it).
	heightVer uint64
	// flowChanged is every height texel whose flow a height edit has changed since the landscape
	// opened (reflow; tests read it).
	flowChanged image.Rectangle
	// res is the field resident on the GPU for the kernels (resident.go).
	res resident
	// gpu is the GPU evaluator (pages and full tiles), nil on the Go reference.
	gpu *gpuEval
	// stalled is set when a pass failed; the next pass (an edit's kick) clears it.
	stalled bool
	// overlayChanged says the density overlay must be bound again though nothing was placed
	// (another overlay chosen, another landscape opened). Session.mu guards it.
	overlayChanged bool
	// derivedFor is what the bound derived overlay grid (the aspect's, the flow's) was computed
	// from; derivedRuns counts the grids computed (a test's witness that a rule edit computes none).
	derivedFor  derivedKey
	derivedRuns int

	// parts is where the passes' time went (Session.mu guards it).
	parts passParts
	// dabRest is how long the Go evaluator's dab passes took after their view (dabframe.go).
	dabRest time.Duration
	// opBumps counts the versions applyFieldOps made (Session.mu guards it): a pass whose own
	// edits made them publishes the newest version (ownVersion).
	opBumps uint64

	// testHookBeforeDrain runs in a pass between taking its stack and draining the dirty tiles
	// (a test makes an edit arrive there).
	testHookBeforeDrain func()
	// testHookEarly runs after an early placement (early.go), with the tiles it placed from.
	testHookEarly func(done []field.Tile)
	// testFullBatch, when positive, caps a full-resolution batch at that many tiles.
	testFullBatch int
}

// dragState is an open slider drag (see Session.Drag).
type dragState struct {
	label  string
	before *stack.Stack
}

func newPipeline(s *Session) *pipeline {
	p := &pipeline{s: s, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
		stale: map[viewport.PageKey]bool{}}
	go p.run()
	return p
}

// kick wakes the worker.
func (p *pipeline) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// kickStack wakes the worker for a stack change and cancels a full-resolution pass in flight
// (its result is stale; a paint dab does not cancel it). s.mu is held.
func (p *pipeline) kickStack() {
	if p.cancel != nil && p.passIsFull {
		p.cancel()
	}
	p.kick()
}

func (p *pipeline) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	<-p.done
}

// release frees the evaluators and scatter kernels (after stop).
func (p *pipeline) release() {
	p.releaseGPU()
}

func (p *pipeline) releaseGPU() {
	p.res.release()
	p.gpu = nil
	if p.full != nil {
		p.full.release()
	}
	if p.pages != nil {
		p.pages.release() // the GPU's is the full evaluator too: its release is safe twice
	}
	p.full, p.pages = nil, nil
	for _, ps := range p.pops {
		ps.release()
	}
	p.pops = nil
}

// syncField brings the resident field up to date with the edits since the last pass, once its
// upload has landed (the worker, before evaluating).
func (p *pipeline) syncField(st *stack.Stack) error {
	if err := p.landField(false); err != nil {
		return err
	}
	wrote, err := p.res.sync(p.s.land.Field, st.Channels(), &p.geo)
	if wrote.Dx()*wrote.Dy() > syncWaitTexels {
		p.s.dev.Wait() // the upload is not the pass's time (drafts are decided by that)
	}
	return err
}

// syncWaitTexels is the most texels an edit's upload may have without a wait of its own before
// the pass's evaluation: a dab's rows (tens of thousands) go in the queue ahead of the work that
// reads them and cost the pass's time nothing measurable; a reloaded height (millions) would be
// counted as the evaluation's and make drafts of every later drag.
const syncWaitTexels = 1 << 20

// landField takes the field's upload over once it has landed (wait: waiting for it) and records
// how long it took among the open's steps.
func (p *pipeline) landField(wait bool) error {
	took, err := p.res.land(wait)
	if took > 0 {
		p.s.mu.Lock()
		p.s.openParts.Steps = append(p.s.openParts.Steps, StepTime{"the field resident on the GPU (beside the first frames)", took})
		p.s.mu.Unlock()
	}
	return err
}

// gestureActive reports an open drag or stroke. s.mu is held.
func (p *pipeline) gestureActive() bool { return p.drag != nil || p.stroke != nil }

// markAllWeights marks every full-resolution tile for the populations and every population for
// placement. s.mu is held.
func (p *pipeline) markAllWeights() {
	if p.dirty != nil {
		p.dirty.MarkAll()
	}
	p.scatterAll = true
}

// newGeneration starts a generation of the weights: the view's pages are evaluated again with the
// newest stack. s.mu is held.
func (p *pipeline) newGeneration() {
	p.gen++
	p.markAllWeights()
}

// stackChanged works out what a stack change touches. s.mu is held.
func (p *pipeline) stackChanged(old, st *stack.Stack) {
	if old == nil || st == nil {
		p.newGeneration()
		p.layersDirty, p.atlasDirty = true, true
		p.kickStack()
		return
	}
	if weightsDiffer(old, st, &p.geo) {
		p.newGeneration()
	}
	if populationsDiffer(old, st, &p.geo) {
		p.scatterAll = true
	}
	for i := range st.Layers {
		if i >= len(old.Layers) {
			p.layersDirty, p.atlasDirty = true, true
			break
		}
		a, b := &old.Layers[i], &st.Layers[i]
		if a.Tint != b.Tint || a.Tiling != b.Tiling || a.Name != b.Name {
			p.layersDirty = true
		}
		if a.Albedo != b.Albedo || a.Normal != b.Normal || a.Mask != b.Mask {
			p.atlasDirty, p.layersDirty = true, true
		}
	}
	if len(old.Layers) != len(st.Layers) {
		p.layersDirty, p.atlasDirty = true, true
	}
	p.kickStack()
}

// weightsDiffer compares what the weights kernel would be given: the packed params and the
// channels bound to the slots. Equal params mean byte-identical weights.
func weightsDiffer(a, b *stack.Stack, geo *landscape.Geometry) bool {
	if !slices.Equal(a.Channels(), b.Channels()) {
		return true
	}
	pa, err1 := stack.Pack(a, geo.Stack)
	pb, err2 := stack.Pack(b, geo.Stack)
	return err1 != nil || err2 != nil || !slices.Equal(pa, pb) || !stackGeometryEqual(a, b)
}

// populationsDiffer reports a change in any population (its rules, density, seed, scale, mesh
// or name, or the list itself).
func populationsDiffer(a, b *stack.Stack, geo *landscape.Geometry) bool {
	if len(a.Populations) != len(b.Populations) {
		return true
	}
	for i := range a.Populations {
		pa, pb := &a.Populations[i], &b.Populations[i]
		if pa.Name != pb.Name || pa.Density != pb.Density || pa.Seed != pb.Seed || pa.Scale != pb.Scale || pa.Mesh != pb.Mesh {
			return true
		}
		x, err1 := stack.PackPopulation(a, i, geo.Stack)
		y, err2 := stack.PackPopulation(b, i, geo.Stack)
		if err1 != nil || err2 != nil || !slices.Equal(x, y) {
			return true
		}
	}
	return false
}

func (p *pipeline) run() {
	defer close(p.done)
	for {
		select {
		case <-p.quit:
			return
		case <-p.wake:
		}
		for {
			more, err := p.pass()
			if gf := (*gpuFailure)(nil); errors.As(err, &gf) && p.fallBack(gf) {
				continue // the same work at once, on the Go reference
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				p.s.emit(Event{Kind: EventError, Err: err})
				// A failed pass is tried again at the next edit, not at once: the same error
				// would repeat as fast as it fails. Until then frames show what there is.
				p.s.mu.Lock()
				p.stalled = true
				p.s.mu.Unlock()
				p.s.rend.request(false) // a frame of what there is (the first may have waited)
				break
			}
			if !more {
				break
			}
			select {
			case <-p.quit:
				return
			default:
			}
		}
	}
}

// setMode records the evaluator in use (passMu held).
func (p *pipeline) setMode(m Evaluator) {
	p.s.mu.Lock()
	p.mode = m
	p.s.mu.Unlock()
}

// fallBack switches a session whose GPU evaluator failed (a submission error, a lost device) to
// the Go reference: the GPU's evaluators and scatter kernels are let go, every full-resolution
// tile and population is due again, the pages the viewport holds stay (the twins agree), and a
// notice says so. The document and the field are the session's, not the device's: nothing is
// lost. It reports whether it switched (false: the session was not on the GPU).
func (p *pipeline) fallBack(gf *gpuFailure) bool {
	p.passMu.Lock()
	if p.mode != GPU {
		p.passMu.Unlock()
		return false
	}
	p.releaseGPU()
	p.full, p.pages = &cpuEval{}, &cpuEval{}
	p.setMode(CPU)
	p.s.fmu.RLock()
	if p.s.land != nil && p.s.land.Field != nil {
		p.s.land.Field.SetFlowRouter(nil) // the flow is routed in Go from now on
	}
	p.s.fmu.RUnlock()
	p.s.mu.Lock()
	p.markAllWeights()
	p.stalled = false
	p.s.mu.Unlock()
	p.passMu.Unlock()
	p.s.emit(Event{Kind: EventNotice, Message: fmt.Sprintf("The GPU failed (%v): Strata now evaluates with the Go reference, slower but the same; nothing was lost.", gf.err)})
	return true
}

// passState is what one pass works with: the newest state, taken under Session.mu at its start.
type passState struct {
	ctx      context.Context
	st       *stack.Stack
	version  uint64
	gen      uint64
	baked    bool
	dragging bool
	stroking bool
	ops      []fieldOp
	layers   bool // the viewport's layer table is due
	atlas    bool // the atlas sheets are due
}

// pass runs one evaluation with the newest state and reports whether work is left: the field
// edits queued, the layer table and atlas, the view's pages, then (when the view has all it
// samples) the full-resolution tiles and the populations.
func (p *pipeline) pass() (more bool, err error) {
	p.passMu.Lock()
	defer p.passMu.Unlock()
	ps, ok := p.begin()
	if !ok {
		return false, nil
	}
	defer p.end()
	t0 := time.Now()
	p.addParts(passParts{passes: 1})
	changedField := p.applyFieldOps(ps.ops, ps.st)
	p.ownVersion(&ps)
	p.addParts(passParts{apply: time.Since(t0)})
	p.refreshLook(ps)
	if ps.baked || ps.st == nil {
		p.s.mu.Lock()
		p.viewTexels = 0
		p.s.mu.Unlock()
		p.publish(ps.version, false, Pass{})
		p.s.rend.request(false)
		return false, nil
	}
	if !stackGeometryEqual(ps.st, p.geoFor) {
		if err := p.regeometry(ps.st); err != nil {
			return false, err
		}
	}
	t1 := time.Now()
	if err := p.syncField(ps.st); err != nil {
		return false, err
	}
	t2 := time.Now()
	shown := p.shownGen
	viewMore, pass, err := p.evaluateView(ps)
	p.addParts(passParts{sync: t2.Sub(t1), view: time.Since(t2)})
	if err != nil {
		return true, err
	}
	if viewMore {
		p.publish(ps.version, true, pass)
		// An edit's first picture (its generation just shown) is drawn at once, at a reduced
		// resolution where frames are slow; the refinements after it wait for the settled frame
		// (a software device's frame would take the cores the refinement needs).
		p.s.rend.request(ps.dragging || p.shownGen != shown)
		return true, nil
	}
	goDab := ps.stroking && p.mode != GPU && pass.Pages > 0
	tRest := time.Now()
	if goDab && p.draftWorthIt() {
		// The Go evaluator's dab: the view shows the new ground now, drawn on the software
		// device while the touched tiles are evaluated and re-placed on the cores beside it (a
		// draft: its instances are the last dab's); the pass's end asks for the final frame.
		// When the rest of the pass is shorter than a draft frame, the draft would be stale
		// before it ended: the pass publishes once, at its end (dabframe.go).
		// On the GPU the frame would queue ahead of that work and hold gpuMu: it waits for it.
		p.publish(ps.version, true, pass)
		p.s.rend.request(true)
	}
	fullMore, full, err := p.evaluateFull(ps, changedField)
	if err != nil {
		return true, err
	}
	if goDab && !fullMore {
		p.noteDabRest(time.Since(tRest))
	}
	pass.Tiles += full.Tiles
	pass.Duration += full.Duration
	pass.Scatter = full.Scatter
	p.bindDensity(full.Tiles > 0 || full.Scatter > 0 || len(ps.ops) > 0) // ops: a painted channel the overlay may show
	p.publish(ps.version, false, pass)
	p.s.rend.request(ps.dragging || ps.stroking)
	return fullMore || p.pending(ps.version), nil
}

// ownVersion moves ps to the version the pass's own field edits made (applyFieldOps counts a
// version for each edit it applies, so that no frame drawn before them claims them): when
// nothing else changed since the pass began, what the pass evaluates from here on is that
// version, and publishing the older one would only cost a second pass and a second frame to say
// that nothing more is coming (a sculpt dab's final frame waited for both).
func (p *pipeline) ownVersion(ps *passState) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.opBumps > 0 && s.version == ps.version+p.opBumps && len(p.fieldOps) == 0 {
		ps.version = s.version
	}
	p.opBumps = 0
}

// addParts adds d to the passes' parts.
func (p *pipeline) addParts(d passParts) {
	p.s.mu.Lock()
	p.parts = p.parts.add(d)
	p.s.mu.Unlock()
}

// begin takes the newest state for a pass (false: nothing is open). The pass's context is
// cancelled by a stack edit while it evaluates full-resolution tiles.
func (p *pipeline) begin() (passState, bool) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.doc.loaded || s.closed {
		return passState{}, false
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	ps := passState{ctx: ctx, st: s.doc.stack, version: s.version, gen: p.gen, baked: s.doc.baked,
		dragging: p.drag != nil, stroking: p.stroke != nil, ops: p.fieldOps,
		layers: p.layersDirty, atlas: p.atlasDirty}
	p.stalled = false
	p.fieldOps = nil
	p.opBumps = 0
	p.layersDirty, p.atlasDirty = false, false
	return ps, true
}

// end closes a pass's context.
func (p *pipeline) end() {
	s := p.s
	s.mu.Lock()
	cancel := p.cancel
	p.cancel, p.passIsFull = nil, false
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// refreshLook sends the viewport a changed layer table or atlas.
func (p *pipeline) refreshLook(ps passState) {
	if ps.st == nil {
		return
	}
	if ps.layers {
		if err := p.s.view.SetLayers(viewLayers(ps.st)); err != nil {
			p.s.emit(Event{Kind: EventError, Err: err})
		}
	}
	if ps.atlas {
		if err := p.showAtlas(ps.st); err != nil {
			p.s.emit(Event{Kind: EventError, Err: err})
		}
	}
}

// viewSize is the viewport's full size: the frame a settled picture is drawn at.
func (p *pipeline) viewSize() (int, int) { return p.s.rend.size() }

// lockGPU orders a pass's GPU work against frames. The Go evaluator writes only memory and the
// viewport's own locked calls, so it takes nothing: a slow software frame then never delays a
// draft.
func (p *pipeline) lockGPU() (unlock func()) {
	if p.mode != GPU {
		return func() {}
	}
	p.s.rend.gpuMu.Lock()
	return p.s.rend.gpuMu.Unlock
}

// pending reports work left after a pass that evaluated version.
func (p *pipeline) pending(version uint64) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version != version || len(p.fieldOps) > 0 || p.layersDirty || p.atlasDirty ||
		(p.drag == nil && p.dirty != nil && p.dirty.Len() > 0 && len(s.doc.stack.Populations) > 0)
}

// refiningSoon reports that evaluation is running or due with no gesture open: the frame it
// ends with will show its result, so a full-resolution frame of the state before it would be
// drawn for nothing (on a software device it would take the pass's cores).
func (p *pipeline) refiningSoon() bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return !p.stalled && p.drag == nil && p.stroke == nil && (p.passIsFull || p.viewTexels > 0 || p.status.Shown != s.version)
}

// dabDue reports an open stroke whose newest dab a pass has yet to publish: that pass asks for
// its frame, so a frame drawn before it (the brush ring moved with the dab) would show the old
// ground and hold the device the pass needs (the frame and the pass take turns on gpuMu).
func (p *pipeline) dabDue() bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.stroke != nil && !p.stalled && p.status.Shown != s.version
}

// passDueWithin reports that the view's pages waiting to be evaluated are expected to take at
// most d (the measured time per texel).
func (p *pipeline) passDueWithin(d time.Duration) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	n := p.viewTexels
	if p.status.Shown != s.version && n == 0 {
		n = 4 * pageTexels // an edit's first pages: the top of the pyramid and a few under it
	}
	return time.Duration(float64(n)*p.nsPerTexel) <= d
}

// publish records and announces the evaluation status.
func (p *pipeline) publish(version uint64, refining bool, pass Pass) {
	s := p.s
	s.mu.Lock()
	st := &p.status
	st.Adapter = s.dev.Info.String()
	st.Evaluator = p.mode.String()
	if pass.Pages > 0 || pass.Tiles > 0 || pass.Draft {
		st.Last = pass
	}
	st.Shown = version
	st.Refining = refining || s.version != version || (p.dirty != nil && p.dirty.Len() > 0 && s.doc.stack != nil && len(s.doc.stack.Populations) > 0)
	st.Instances = st.Instances[:0]
	for _, ps := range p.pops {
		st.Instances = append(st.Instances, PopulationCount{Name: ps.name, Count: ps.count})
	}
	out := *st
	out.Instances = append([]PopulationCount(nil), st.Instances...)
	s.mu.Unlock()
	s.emit(Event{Kind: EventStatus, Status: out})
}

// Status returns the last evaluation status.
func (s *Session) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.pipe.status
	out.Instances = append([]PopulationCount(nil), out.Instances...)
	return out
}

// shownFrame says what a frame drawn now shows (for frame events), given how many weights pages
// it lacked: the version, whether it is a draft (coarser levels stand in for pages it samples),
// whether more evaluation is coming, and when the version was made (zero when a newer version
// exists).
func (p *pipeline) shownFrame(missing int) (version uint64, draft, refining bool, made time.Time) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.status.Shown == s.version {
		made = s.versionAt
	}
	// A version the last pass did not publish is still to be evaluated (the pass that publishes
	// it is always kicked: Session.changed): before the first pass after an open the picture
	// shows the ground without its weights, and that is not a settled frame.
	draft = missing > 0 && s.doc.stack != nil
	return p.status.Shown, draft, draft || p.status.Refining || p.status.Shown != s.version, made
}

// stackGeometryEqual reports whether two stacks place the same geometry (only gradientStep does).
func stackGeometryEqual(a, b *stack.Stack) bool {
	if a == nil || b == nil {
		return a == b
	}
	switch {
	case a.GradientStep == nil && b.GradientStep == nil:
		return true
	case a.GradientStep == nil || b.GradientStep == nil:
		return false
	}
	return *a.GradientStep == *b.GradientStep
}

// regeometry recomputes the geometry for st (its gradientStep moves the aprons).
func (p *pipeline) regeometry(st *stack.Stack) error {
	l := p.s.land
	geo, err := landscape.NewGeometry(st, l.Field, l.Resolution())
	if err != nil {
		return err
	}
	p.geo = geo
	p.geoFor = st
	p.wtiles.reset()
	p.dirty.SetGradientStep(geo.Stack.GradientStep)
	return nil
}
