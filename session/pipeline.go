package session

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
	"sync"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/stack"
)

// draftBudget is how long a pass may take while a slider moves before the pipeline evaluates a
// coarser draft instead (the live loop's target is a new frame within ~150 ms on a 2-core CPU).
const draftBudget = 40 * time.Millisecond

// draftTexels is the most weights texels a draft grid holds.
const draftTexels = 512 * 512

// pipeline is the one background worker that turns the newest state into weights, scatter and
// frames. Edits only mark what they dirtied and wake it; it takes the newest stack when it starts
// a pass, so a burst of slider events costs a handful of passes, never a queue of stale ones.
type pipeline struct {
	s    *Session
	wake chan struct{}
	quit chan struct{}
	done chan struct{}

	// passMu is held by the worker through a pass and by Open/Save while they swap or read the
	// landscape, so neither ever sees the other half done.
	passMu sync.Mutex

	// Guarded by Session.mu.
	drag        *dragState
	stroke      *strokeState
	fieldOps    []fieldOp
	dirty       *field.DirtySet // full-resolution weights tiles to evaluate
	scatterAll  bool            // every population's placement must be redone
	layersDirty bool            // the viewport's layer table (tints, tiling)
	atlasDirty  bool            // the atlas sheets (a layer's texture)
	// stackEdited says the weights' stack changed since the last full pass: on a slow machine
	// the next pass is a draft, so the edit shows at once and refines after.
	stackEdited bool
	cancel      context.CancelFunc
	passIsFull  bool // the running pass evaluates at full resolution (cancellable by a stack edit)
	status      Status

	// Owned by the worker (and by whoever holds passMu with the worker idle).
	mode       Evaluator // GPU or CPU, chosen at open
	full       evaluator
	draft      evaluator
	geo        bake.Geometry
	draftGeo   bake.Geometry
	nsPerTexel float64 // measured cost of the chosen evaluator; written under Session.mu (frames read it)
	showing    shown
	pops       []*popState
	wtiles     *tileCache
	lastStack  *stack.Stack // the stack the full weights were last evaluated with
	// draftedVersion is the version the last draft showed, draftStack its stack.
	draftedVersion uint64
	draftStack     *stack.Stack
	// fullPasses counts full-resolution passes since the landscape opened.
	fullPasses int
	// heightVer counts changes of the height grid's values (scatter kernels re-upload it).
	heightVer uint64
	// fb is the field resident on the GPU (GPU mode, when it fits one binding); fieldRect the
	// height texels edited since it was last brought up to date, fieldAll a whole upload due.
	fb        *gpu.FieldBuffers
	fieldRect image.Rectangle
	fieldAll  bool
	// stalled is set when a pass failed; the next pass (an edit's kick) clears it.
	stalled bool
	// overlayChanged says the density overlay must be bound again though nothing was placed
	// (another overlay chosen, another landscape opened). Session.mu guards it.
	overlayChanged bool

	// testHookBeforeDrain runs in a pass between taking its stack and draining the dirty tiles
	// (a test makes an edit arrive there).
	testHookBeforeDrain func()
}

// shown is what the viewport's weights reflect.
type shown struct {
	version uint64
	draft   bool
	full    bool // the full-resolution grid is bound (not a draft)
}

// dragState is an open slider drag (see Session.Drag).
type dragState struct {
	label  string
	before *stack.Stack
}

func newPipeline(s *Session) *pipeline {
	p := &pipeline{s: s, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

// kick wakes the worker; cancelRunning also cancels a full pass in flight (a stack edit makes its
// result stale; a paint dab does not, it waits for the pass to end).
func (p *pipeline) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// kickStack wakes the worker for a stack change and cancels a full pass in flight. s.mu is held.
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
	if p.full != nil {
		p.full.release()
	}
	if p.draft != nil {
		p.draft.release()
	}
	p.full, p.draft = nil, nil
	for _, ps := range p.pops {
		ps.release()
	}
	p.pops = nil
	p.fb.Release()
	p.fb = nil
}

// syncField brings the resident field up to date with the edits since the last pass (the
// worker, before evaluating).
func (p *pipeline) syncField(st *stack.Stack) error {
	if p.fb == nil {
		return nil
	}
	rect := p.fieldRect
	if p.fieldAll {
		p.fb.Release() // a new landscape: every plane again
	}
	if _, err := p.fb.Upload(p.s.land.Field, st.Channels(), rect); err != nil {
		return err
	}
	if p.fieldAll || !rect.Empty() {
		p.s.dev.Wait() // the upload is not the pass's time (drafts are decided by that)
	}
	p.fieldRect, p.fieldAll = image.Rectangle{}, false
	return nil
}

// gestureActive reports an open drag or stroke. s.mu is held.
func (p *pipeline) gestureActive() bool { return p.drag != nil || p.stroke != nil }

// markAllWeights marks every tile for re-evaluation. s.mu is held.
func (p *pipeline) markAllWeights() {
	if p.dirty != nil {
		p.dirty.MarkAll()
	}
	p.scatterAll = true
}

// stackChanged works out what a stack change touches. s.mu is held.
func (p *pipeline) stackChanged(old, st *stack.Stack) {
	if old == nil || st == nil {
		p.markAllWeights()
		p.layersDirty, p.atlasDirty = true, true
		p.kickStack()
		return
	}
	if weightsDiffer(old, st, &p.geo) {
		p.markAllWeights()
		p.stackEdited = true
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
func weightsDiffer(a, b *stack.Stack, geo *bake.Geometry) bool {
	if !slices.Equal(a.Channels(), b.Channels()) {
		return true
	}
	pa, err1 := stack.Pack(a, geo.Stack)
	pb, err2 := stack.Pack(b, geo.Stack)
	return err1 != nil || err2 != nil || !slices.Equal(pa, pb) || !stackGeometryEqual(a, b)
}

// populationsDiffer reports a change in any population (its rules, density, seed, scale, mesh
// or name, or the list itself).
func populationsDiffer(a, b *stack.Stack, geo *bake.Geometry) bool {
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

// pass runs one evaluation with the newest state and reports whether work is left.
func (p *pipeline) pass() (more bool, err error) {
	p.passMu.Lock()
	defer p.passMu.Unlock()
	s := p.s
	s.mu.Lock()
	if !s.doc.loaded || s.closed {
		s.mu.Unlock()
		return false, nil
	}
	st, version := s.doc.stack, s.version
	baked := s.doc.baked
	p.stalled = false
	dragging := p.drag != nil
	stroking := p.stroke != nil
	edited := p.stackEdited
	ops := p.fieldOps
	p.fieldOps = nil
	layers, atlas := p.layersDirty, p.atlasDirty
	p.layersDirty, p.atlasDirty = false, false
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		p.cancel, p.passIsFull = nil, false
		s.mu.Unlock()
		cancel()
	}()

	changedField := p.applyFieldOps(ops, st)
	if layers && st != nil {
		if err := s.view.SetLayers(viewLayers(st)); err != nil {
			return false, err
		}
	}
	if atlas && st != nil {
		if err := p.showAtlas(st); err != nil {
			s.emit(Event{Kind: EventError, Err: err})
		}
	}
	if baked || st == nil {
		p.publish(version, false, Pass{})
		s.rend.request(false)
		return false, nil
	}
	if !stackGeometryEqual(st, p.lastStack) {
		if err := p.regeometry(st); err != nil {
			return false, err
		}
	}

	if err := p.syncField(st); err != nil {
		return false, err
	}
	fullTiles := p.dirty.Len()
	estimate := time.Duration(float64(fullTiles*field.DefaultTileSize*field.DefaultTileSize) * p.nsPerTexel)
	// A draft while a slider moves, and first after a discrete edit — but not of a stack whose
	// draft is already on screen (a released drag goes straight to its refinement).
	drafted := p.showing.draft && p.draftStack == st
	if estimate > draftBudget && p.draft != nil && !drafted && (dragging || (edited && p.draftedVersion != version)) {
		t0 := time.Now()
		unlock := p.lockGPU()
		err := p.draft.run(ctx, st, s.land.Field, &p.draftGeo, p.draftGeo.Tiles(field.DefaultTileSize))
		took := time.Since(t0)
		if err == nil {
			err = p.draft.show(s.view, nil, true)
		}
		unlock()
		if err != nil {
			return true, err
		}
		p.showing = shown{version: version, draft: true}
		p.draftedVersion, p.draftStack = version, st
		p.publish(version, true, Pass{Duration: took, Tiles: len(p.draftGeo.Tiles(field.DefaultTileSize)), Draft: true})
		s.rend.request(true)
		return p.pending(version), nil
	}

	if p.testHookBeforeDrain != nil {
		p.testHookBeforeDrain()
	}
	s.mu.Lock()
	var idx []int
	scatterAll := false
	if s.doc.stack == st {
		idx = p.dirty.Drain()
		scatterAll = p.scatterAll
		p.scatterAll = false
	}
	// Otherwise a stack edit arrived while this pass prepared: the tiles it marked and the
	// placement it asked for belong to the next pass, which evaluates them with that stack
	// (this one would clear them with results of the old one). This pass still places what its
	// field edits moved and publishes its version as refining.
	tiles := make([]field.Tile, 0, len(idx))
	for _, i := range idx {
		if t, ok := field.TileAt(&p.geo.Field, p.s.opts.TileSize, p.geo.Stack.GradientStep, i); ok {
			tiles = append(tiles, t)
		}
	}
	p.passIsFull = len(tiles) > 0
	s.mu.Unlock()
	t0 := time.Now()
	var evalTime time.Duration
	if len(tiles) > 0 {
		unlock := p.lockGPU()
		err := p.full.run(ctx, st, s.land.Field, &p.geo, tiles)
		if p.mode == GPU {
			// Queued work is measured finished: the time a pass takes is what decides drafts (the
			// frame that follows waits for it anyway).
			s.dev.Wait()
		}
		evalTime = time.Since(t0)
		if err == nil {
			err = p.full.show(s.view, tiles, !p.showing.full)
		}
		unlock()
		if err != nil {
			// Not done: mark them again so the next pass (with the newest state) covers them.
			for _, i := range idx {
				p.dirty.Mark(i)
			}
			if scatterAll {
				s.mu.Lock()
				p.scatterAll = true
				s.mu.Unlock()
			}
			return true, err
		}
		p.showing = shown{version: version, full: true}
		p.lastStack = st
		s.mu.Lock()
		if s.version == version {
			p.stackEdited = false
		}
		s.mu.Unlock()
		s.flash(tiles)
	}
	if len(tiles) > 0 {
		measured := float64(evalTime) / float64(max(1, len(tiles)*field.DefaultTileSize*field.DefaultTileSize))
		s.mu.Lock()
		if p.fullPasses == 0 {
			p.nsPerTexel = measured // the first real pass replaces the estimate made at open
		} else {
			p.nsPerTexel = 0.5*p.nsPerTexel + 0.5*measured
		}
		s.mu.Unlock()
		p.fullPasses++
	}
	var scatterTime time.Duration
	if len(st.Populations) == 0 && len(p.pops) > 0 {
		// The last population went: so do its instances.
		p.syncPops(st)
		if err := s.view.SetPopulations(nil); err != nil {
			return false, err
		}
	}
	placed := len(st.Populations) > 0 && (len(tiles) > 0 || scatterAll || changedField)
	if placed {
		t1 := time.Now()
		if err := p.scatter(ctx, st, tiles, scatterAll, dragging || stroking); err != nil {
			if !errors.Is(err, context.Canceled) {
				s.emit(Event{Kind: EventError, Err: fmt.Errorf("scatter: %w", err)})
			}
		}
		scatterTime = time.Since(t1)
	}
	p.bindDensity(placed || len(ops) > 0) // ops: a painted channel the overlay may show
	p.showing.version = version
	p.publish(version, false, Pass{Duration: evalTime, Tiles: len(tiles), Scatter: scatterTime})
	s.rend.request(dragging || stroking)
	return p.pending(version), nil
}

// lockGPU orders a pass's GPU work against frames (a frame must not sample the target between two
// tiles of one pass). The Go evaluator writes only memory and the viewport's own locked calls, so
// it takes nothing: a slow software frame then never delays a draft.
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
		(p.drag == nil && p.dirty != nil && p.dirty.Len() > 0)
}

// refiningSoon reports that a full-resolution pass is running or due with no gesture open: the
// frame it ends with will show its result, so a full-resolution frame of the state before it
// would be drawn for nothing (on a software device it would take the pass's cores).
func (p *pipeline) refiningSoon() bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return !p.stalled && p.drag == nil && p.stroke == nil && (p.passIsFull || (p.dirty != nil && p.dirty.Len() > 0))
}

// passDueWithin reports that the weight tiles waiting to be evaluated are expected to take at
// most d (the measured time per texel).
func (p *pipeline) passDueWithin(d time.Duration) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.dirty == nil {
		return true
	}
	n := p.dirty.Len() * field.DefaultTileSize * field.DefaultTileSize
	return time.Duration(float64(n)*p.nsPerTexel) <= d
}

// publish records and announces the evaluation status.
func (p *pipeline) publish(version uint64, draft bool, pass Pass) {
	s := p.s
	s.mu.Lock()
	st := &p.status
	st.Adapter = s.dev.Info.String()
	st.Evaluator = p.mode.String()
	if pass.Tiles > 0 || pass.Draft {
		st.Last = pass
	}
	st.Shown = version
	st.Refining = draft || s.version != version || (p.dirty != nil && p.dirty.Len() > 0)
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

// shownFrame says what the viewport shows now (for frame events): the version, whether it is a
// draft, whether more evaluation is coming, and when the version was made (zero when a newer
// version exists).
func (p *pipeline) shownFrame() (version uint64, draft, refining bool, made time.Time) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.status.Shown == s.version {
		made = s.versionAt
	}
	// A version the last pass did not publish is still to be evaluated (the pass that publishes
	// it is always kicked: Session.changed): before the first pass after an open the picture
	// shows the ground without its weights, and that is not a settled frame.
	return p.status.Shown, p.showing.draft, p.status.Refining || p.status.Shown != s.version, made
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

// regeometry recomputes the full and draft geometry for st (its gradientStep moves the aprons).
func (p *pipeline) regeometry(st *stack.Stack) error {
	l := p.s.land
	geo, err := bake.NewGeometry(st, l.Field, l.Resolution())
	if err != nil {
		return err
	}
	p.geo = geo
	p.wtiles.reset()
	// The draft grid: the weights grid coarsened so a pass stays within draftTexels.
	n := float64(geo.Field.WeightsW) * float64(geo.Field.WeightsH)
	k := math.Ceil(math.Sqrt(n / draftTexels))
	if k < 2 {
		k = 2
	}
	dw := max(2, int(math.Round(float64(geo.Field.WeightsW)/k)))
	res := l.Field.Size[0] / float64(dw)
	if p.draftGeo, err = bake.NewGeometry(st, l.Field, res); err != nil {
		return err
	}
	p.dirty.SetGradientStep(geo.Stack.GradientStep)
	return nil
}
