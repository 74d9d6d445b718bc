package session

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"sync"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/stack"
	"strata/viewport"
)

// draftBudget is how long a pass may take while a slider moves: the levels of the weights
// pyramid it evaluates are the finest whose pages the camera samples that fit this (the live
// loop's target is a new frame within ~150 ms on a 2-core CPU).
const draftBudget = 40 * time.Millisecond

// batchBudget is how long a pass evaluates pages of the view before it publishes them and lets a
// frame through, where frames are cheap (a real GPU): a view refines in steps a person sees. On a
// software device, whose frame of a large field costs a second of the same cores, the view is
// evaluated whole and drawn once.
const batchBudget = 120 * time.Millisecond

// fullBudget is how long a pass spends on the full-resolution tiles the populations need (the
// background work behind the view) before it looks at the view again.
const fullBudget = 150 * time.Millisecond

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
	// landscape, so neither ever sees the other half done.
	passMu sync.Mutex

	// Guarded by Session.mu.
	drag        *dragState
	stroke      *strokeState
	fieldOps    []fieldOp
	dirty       *field.DirtySet // full-resolution weights tiles the populations need evaluated
	scatterAll  bool            // every population's placement must be redone
	layersDirty bool            // the viewport's layer table (tints, tiling)
	atlasDirty  bool            // the atlas sheets (a layer's texture)
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

	// Owned by the worker (and by whoever holds passMu with the worker idle).
	mode       Evaluator // GPU or CPU, chosen at open
	full       evaluator // the full-resolution grid, for the populations
	pages      pageEvaluator
	geo        bake.Geometry
	nsPerTexel float64 // measured cost of the chosen evaluator; written under Session.mu (frames read it)
	fullNs     float64 // measured cost of the full-resolution tiles, per texel (0: none yet)
	pops       []*popState
	wtiles     *tileCache
	geoFor     *stack.Stack // a stack with the gradient step geo was made for
	// shownGen is the weights generation the viewport shows.
	shownGen uint64
	// stale are pages of the current generation whose ground changed since they were written
	// (a painted mask, a reloaded height): written again when the view samples them.
	stale map[viewport.PageKey]bool
	// fullPasses counts passes that evaluated pages or tiles since the landscape opened.
	fullPasses int
	// heightVer counts changes of the height grid's values (scatter kernels re-upload it).
	heightVer uint64
	// fb is the field resident on the GPU (GPU mode, when it fits one binding and the budget);
	// fieldRect the height texels edited since it was last brought up to date.
	fb        *gpu.FieldBuffers
	fieldRect image.Rectangle
	// upload is the field on its way to the device (startResident), fbUpload hears its end,
	// uploadStart is when it began; once it has landed it is fb (residentReady).
	upload      *gpu.FieldBuffers
	fbUpload    chan error
	uploadStart time.Time
	// gpu is the GPU evaluator (pages and full tiles), nil on the Go reference.
	gpu *gpuEval
	// stalled is set when a pass failed; the next pass (an edit's kick) clears it.
	stalled bool
	// overlayChanged says the density overlay must be bound again though nothing was placed
	// (another overlay chosen, another landscape opened). Session.mu guards it.
	overlayChanged bool

	// testHookBeforeDrain runs in a pass between taking its stack and draining the dirty tiles
	// (a test makes an edit arrive there).
	testHookBeforeDrain func()
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
	if p.fbUpload != nil {
		<-p.fbUpload // an upload still under way writes the buffers released below
		p.fbUpload = nil
	}
	p.upload.Release()
	p.upload, p.gpu = nil, nil
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
	p.fb.Release()
	p.fb = nil
}

// syncField brings the resident field up to date with the edits since the last pass (the
// worker, before evaluating).
func (p *pipeline) syncField(st *stack.Stack) error {
	if err := p.residentReady(false); err != nil {
		return err
	}
	if p.fb == nil {
		return nil
	}
	rect := p.fieldRect
	if _, err := p.fb.Upload(p.s.land.Field, st.Channels(), rect); err != nil {
		return err
	}
	if !rect.Empty() {
		p.s.dev.Wait() // the upload is not the pass's time (drafts are decided by that)
	}
	p.fieldRect = image.Rectangle{}
	return nil
}

// residentReady takes the field's upload over once it has landed (wait: waiting for it): from
// then on the kernels read the field where it is. Without one under way it does nothing.
func (p *pipeline) residentReady(wait bool) error {
	if p.fbUpload == nil {
		return nil
	}
	var err error
	if wait {
		err = <-p.fbUpload
	} else {
		select {
		case err = <-p.fbUpload:
		default:
			return nil // still on its way
		}
	}
	p.fbUpload = nil
	p.gpu.uploading = false
	if err != nil {
		p.upload.Release()
		p.upload = nil
		return err
	}
	p.fb, p.upload = p.upload, nil
	p.gpu.fb = p.fb
	p.s.mu.Lock()
	p.s.openParts.Steps = append(p.s.openParts.Steps, StepTime{"the field resident on the GPU (beside the first frames)", time.Since(p.uploadStart)})
	p.s.mu.Unlock()
	return nil
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
	changedField := p.applyFieldOps(ps.ops, ps.st)
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
	if err := p.syncField(ps.st); err != nil {
		return false, err
	}
	shown := p.shownGen
	viewMore, pass, err := p.evaluateView(ps)
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
	fullMore, full, err := p.evaluateFull(ps, changedField)
	if err != nil {
		return true, err
	}
	pass.Tiles += full.Tiles
	pass.Duration += full.Duration
	pass.Scatter = full.Scatter
	p.bindDensity(full.Tiles > 0 || full.Scatter > 0 || len(ps.ops) > 0) // ops: a painted channel the overlay may show
	p.publish(ps.version, false, pass)
	p.s.rend.request(ps.dragging || ps.stroking)
	return fullMore || p.pending(ps.version), nil
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

// evaluateView writes the pages of the weights pyramid the camera samples that the generation
// lacks (or whose ground changed), coarse before fine and nearest first; while a slider moves,
// only the levels that fit draftBudget. It shows the generation once its first pages are in, and
// reports whether the view still lacks pages.
func (p *pipeline) evaluateView(ps passState) (more bool, pass Pass, err error) {
	s := p.s
	w, h := p.viewSize()
	need := s.view.WeightsNeed(w, h)
	var todo []viewport.PageKey
	for _, key := range need {
		if p.stale[key] || !s.view.WeightsResident(key, ps.gen) {
			todo = append(todo, key)
		}
	}
	p.dropUnneededStale(need, ps.gen)
	pageCost := time.Duration(float64(pageTexels) * p.nsPerTexel)
	drafting := false
	if ps.dragging {
		all := len(todo)
		todo = draftPages(todo, need, pageCost)
		drafting = len(todo) < all // finer levels wait for the release
	}
	t0 := time.Now()
	done := 0
	// A generation not shown yet shows once its coarsest pages of the view are in: the first
	// picture of an edit covers the whole view, fast. After that the view is evaluated whole in
	// one pass — unless a newer state or another camera asks for another plan, or frames are
	// cheap enough here to show the refinement as it goes (batchBudget).
	first := -1
	if ps.gen != p.shownGen {
		first = coarsestTodo(todo)
	}
	cam := s.view.Camera()
	progressive := s.rend.fast()
	for _, key := range todo {
		if done > 0 {
			if first >= 0 && key.Level != first {
				break
			}
			if p.superseded(ps.version) || s.view.Camera() != cam || (progressive && time.Since(t0) > batchBudget) {
				break
			}
		}
		if err := p.evaluatePage(ps, key); err != nil {
			if errors.Is(err, viewport.ErrAtlasFull) {
				break // the budget holds no more of this view: it shows coarser levels there
			}
			return true, pass, err
		}
		delete(p.stale, key)
		done++
	}
	if done > 0 && p.mode == GPU {
		s.dev.Wait() // measured finished: the time per texel decides drafts
	}
	took := time.Since(t0)
	if ps.gen != p.shownGen && done > 0 {
		s.view.ShowWeights(ps.gen)
		p.shownGen = ps.gen
	}
	// Pages the Go reference made while the field travels to the device say nothing of the GPU's
	// time per texel: measured from them, drafts and full batches would stay CPU-sized long after.
	if done > 0 && !(p.gpu != nil && p.gpu.uploading) {
		p.measured(took, done*pageTexels)
		p.fullPasses++
	}
	left := len(todo) - done
	if done < len(todo) && !s.view.WeightsRoom() {
		left = 0 // nothing more fits: the view is as evaluated as the budget allows
	}
	s.mu.Lock()
	p.viewTexels = left * pageTexels
	s.mu.Unlock()
	return left > 0 && !drafting, Pass{Duration: took, Pages: done, Draft: drafting || left > 0}, nil
}

// superseded reports a newer state than version: a pass working for it should plan again.
func (p *pipeline) superseded(version uint64) bool {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version != version || len(p.fieldOps) > 0
}

// pageTexels is what one page costs to evaluate (its texels and the far border).
const pageTexels = (viewport.PageSize + 1) * (viewport.PageSize + 1)

// coarsestTodo is the coarsest level among pages to do.
func coarsestTodo(todo []viewport.PageKey) int {
	c := 0
	for _, k := range todo {
		c = max(c, k.Level)
	}
	return c
}

// draftPages keeps of todo the levels a drag can afford: from the coarsest down, a level of the
// view joins while the pages of all levels so far fit draftBudget (the coarsest always does).
func draftPages(todo, need []viewport.PageKey, pageCost time.Duration) []viewport.PageKey {
	perLevel := map[int]int{}
	top := 0
	for _, k := range need {
		perLevel[k.Level]++
		top = max(top, k.Level)
	}
	finest := top
	var spent time.Duration
	for l := top; l >= 0; l-- {
		spent += time.Duration(perLevel[l]) * pageCost
		if l < top && spent > draftBudget {
			break
		}
		finest = l
	}
	out := todo[:0:0]
	for _, k := range todo {
		if k.Level >= finest {
			out = append(out, k)
		}
	}
	return out
}

// dropUnneededStale forgets stale pages the view no longer samples: they would otherwise show
// the old ground when the camera comes back before they are written again.
func (p *pipeline) dropUnneededStale(need []viewport.PageKey, gen uint64) {
	if len(p.stale) == 0 {
		return
	}
	needed := make(map[viewport.PageKey]bool, len(need))
	for _, k := range need {
		needed[k] = true
	}
	for k := range p.stale {
		if !needed[k] {
			p.s.view.DropPage(k, gen)
			delete(p.stale, k)
		}
	}
}

// evaluatePage evaluates one page of generation ps.gen into the viewport.
func (p *pipeline) evaluatePage(ps passState, key viewport.PageKey) error {
	geo := p.geo.Level(key.Level)
	x0, z0, x1, z1 := p.s.view.PageRect(key)
	rect := image.Rect(x0, z0, x1, z1)
	unlock := p.lockGPU()
	defer unlock()
	return p.pages.page(ps.ctx, p.s.view, ps.st, p.s.land.Field, &geo, key, ps.gen, rect)
}

// measured folds a pass's time per texel into the estimate that decides drafts. The first real
// pass replaces the one made at open.
func (p *pipeline) measured(took time.Duration, texels int) {
	m := float64(took) / float64(max(1, texels))
	s := p.s
	s.mu.Lock()
	if p.fullPasses == 0 {
		p.nsPerTexel = m
	} else {
		p.nsPerTexel = 0.5*p.nsPerTexel + 0.5*m
	}
	s.mu.Unlock()
}

// evaluateFull is the background behind the view: the full-resolution tiles the populations
// need (every dirty tile, for at most fullBudget a pass) and, once none is left, the populations
// placed on them. A stack with no population needs none: its dirty tiles are dropped.
func (p *pipeline) evaluateFull(ps passState, changedField bool) (more bool, pass Pass, err error) {
	s := p.s
	st := ps.st
	if p.testHookBeforeDrain != nil {
		p.testHookBeforeDrain()
	}
	s.mu.Lock()
	if ps.dragging && p.dirty.Len() > 0 {
		// A layer's slider moves: the populations hold until the release (the full-resolution
		// weights they read are the release's work). A population's own slider places it live.
		s.mu.Unlock()
		return false, pass, nil
	}
	var idx []int
	scatterAll := false
	if s.doc.stack == st {
		if len(st.Populations) == 0 {
			p.dirty.Drain() // no population reads them
		} else {
			idx = p.dirty.Drain()
		}
		scatterAll = p.scatterAll
		p.scatterAll = false
	}
	// Otherwise a stack edit arrived while this pass prepared: the tiles it marked and the
	// placement it asked for belong to the next pass, which evaluates them with that stack
	// (this one would clear them with results of the old one).
	tiles := make([]field.Tile, 0, len(idx))
	for _, i := range idx {
		if t, ok := field.TileAt(&p.geo.Field, s.opts.TileSize, p.geo.Stack.GradientStep, i); ok {
			tiles = append(tiles, t)
		}
	}
	// At most a budget's worth now; the rest stays marked for the next pass (the view first).
	if n := p.fullBatch(len(tiles)); n < len(tiles) {
		for _, t := range tiles[n:] {
			p.dirty.Mark(t.Index)
		}
		tiles = tiles[:n]
		more = true
		if scatterAll {
			p.scatterAll, scatterAll = true, false
		}
	}
	p.passIsFull = len(tiles) > 0
	s.mu.Unlock()
	if len(tiles) > 0 || scatterAll {
		// The whole field's tiles, and the populations placed from them, read the field where
		// it is: its upload must have landed.
		if err := p.residentReady(true); err != nil {
			p.remark(tiles, scatterAll)
			return true, pass, err
		}
		if err := p.syncField(st); err != nil {
			p.remark(tiles, scatterAll)
			return true, pass, err
		}
	}
	if len(tiles) > 0 {
		t0 := time.Now()
		unlock := p.lockGPU()
		err := p.full.run(ps.ctx, st, s.land.Field, &p.geo, tiles)
		if p.mode == GPU {
			s.dev.Wait()
		}
		unlock()
		pass.Duration = time.Since(t0)
		pass.Tiles = len(tiles)
		if err != nil {
			p.remark(tiles, scatterAll)
			return true, pass, err
		}
		texels := 0
		for _, t := range tiles {
			texels += t.W * t.H
		}
		p.fullNs = float64(pass.Duration) / float64(max(texels, 1))
		s.flash(tiles)
	}
	if more {
		return true, pass, nil
	}
	if len(st.Populations) == 0 && len(p.pops) > 0 {
		// The last population went: so do its instances.
		p.syncPops(st)
		if err := s.view.SetPopulations(nil); err != nil {
			return false, pass, err
		}
	}
	placed := len(st.Populations) > 0 && (len(tiles) > 0 || scatterAll || changedField)
	if placed {
		t1 := time.Now()
		if err := p.scatter(ps.ctx, st, tiles, scatterAll, ps.dragging || ps.stroking); err != nil {
			if !errors.Is(err, context.Canceled) {
				s.emit(Event{Kind: EventError, Err: fmt.Errorf("scatter: %w", err)})
			}
		}
		pass.Scatter = time.Since(t1)
	}
	return false, pass, nil
}

// fullBatch is how many of n full-resolution tiles fit fullBudget (at least one), at the time
// per texel the full passes measured (the pages' until one has).
func (p *pipeline) fullBatch(n int) int {
	ns := p.fullNs
	if ns <= 0 {
		ns = p.nsPerTexel
	}
	per := float64(p.s.opts.TileSize*p.s.opts.TileSize) * ns
	if per <= 0 {
		return n
	}
	return min(n, max(1, int(float64(fullBudget)/per)))
}

// remark marks tiles (and the placement) again after a failed or cancelled evaluation, so the
// next pass, with the newest state, covers them.
func (p *pipeline) remark(tiles []field.Tile, scatterAll bool) {
	s := p.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tiles {
		p.dirty.Mark(t.Index)
	}
	if scatterAll {
		p.scatterAll = true
	}
}

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
	geo, err := bake.NewGeometry(st, l.Field, l.Resolution())
	if err != nil {
		return err
	}
	p.geo = geo
	p.geoFor = st
	p.wtiles.reset()
	p.dirty.SetGradientStep(geo.Stack.GradientStep)
	return nil
}
