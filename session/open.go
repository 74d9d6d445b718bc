package session

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/progress"
	"strata/recovery"
	"strata/stack"
	"strata/terraindata"
	"strata/viewport"
)

// OpenSample opens the built-in "dunes" sample with its own stack (File → New → Sample).
func (s *Session) OpenSample(ctx context.Context) error {
	s.mu.Lock()
	ahead := s.sample
	s.sample = nil
	s.mu.Unlock()
	var l *landscape.Landscape
	if ahead != nil {
		select {
		case l = <-ahead:
		case <-ctx.Done():
			return ctx.Err()
		}
	} else {
		l = sampleLandscape()
	}
	return s.load(ctx, l, "", "dunes", nil, recovery.Base{Kind: recovery.BaseSample})
}

// sampleLandscape is the built-in sample: its stack on its ground.
func sampleLandscape() *landscape.Landscape {
	return &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunes()}
}

// OpenSampleSized is OpenSample at n×n height texels (tests and benchmarks keep fields small).
func (s *Session) OpenSampleSized(ctx context.Context, n int, st *stack.Stack) error {
	if st == nil {
		st = stack.SampleDunes()
	}
	return s.load(ctx, &landscape.Landscape{Stack: st, Field: field.SampleDunesSized(n)}, "", "dunes", nil,
		recovery.Base{Kind: recovery.BaseSample, Texels: n})
}

// OpenLandscape opens an assembled landscape (a benchmark's field and stack) under name.
func (s *Session) OpenLandscape(ctx context.Context, l *landscape.Landscape, name string) error {
	return s.load(ctx, l, "", name, nil, recovery.Base{Kind: recovery.BaseInline})
}

// OpenContainer opens a terrainData container for editing: its stack, channels, holes and weights
// come back as they were saved. A container with no stack opens with its baked weights shown.
// On any error the landscape open until now stays open.
func (s *Session) OpenContainer(ctx context.Context, path string) error {
	read := stepTimes{last: time.Now()}
	l, err := landscape.Open(path)
	if err != nil {
		return err
	}
	if l.Stack != nil {
		absoluteTextures(l.Stack, path)
	}
	read.add("read the container")
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return s.loadAfter(ctx, l, path, nameOf(path), []string{path}, read, nil, baseFor(l, recovery.Base{Kind: recovery.BaseContainer, Path: abs}))
}

// HeightmapOptions says how to read a heightmap for File → New → From heightmap.
type HeightmapOptions struct {
	Import field.ImportOptions
	// Size is the field's extent in metres; nil = one metre per texel.
	Size *[2]float64
	// Progress hears the rows read of the file (nil: none); the status bar hears them too.
	Progress progress.Func
}

// reading announces an open's read of a file, rows done of total (name "" when it ended): the
// status bar says so while a large heightmap is read.
func (s *Session) reading(name string, done, total int) {
	text := ""
	if name != "" && total > 0 {
		text = fmt.Sprintf("reading %s… %d%%", name, 100*done/total)
	}
	s.opening(text)
}

// opening puts what an open is doing in the status bar (Status.Reading; "" when it is done).
func (s *Session) opening(text string) {
	s.mu.Lock()
	st := s.pipe.status
	st.Reading = text
	changed := st.Reading != s.pipe.status.Reading
	s.pipe.status.Reading = st.Reading
	st.Instances = append([]PopulationCount(nil), st.Instances...)
	s.mu.Unlock()
	if changed {
		s.emit(Event{Kind: EventStatus, Status: st})
	}
}

// OpenHeightmap starts a new landscape on a heightmap with a starter stack (ground, and rock on
// slopes). The heightmap is watched: when another program rewrites it, the changed texels are
// reloaded as an undoable step.
func (s *Session) OpenHeightmap(ctx context.Context, path string, o HeightmapOptions) error {
	name := filepath.Base(path)
	read := stepTimes{last: time.Now()}
	// The viewport's level-of-detail tree is built from the rows the decoder has completed while
	// it decodes the rest, on the core the decode leaves (docs/design.md "Progressive open").
	tree := &rowsTree{}
	defer func() { tree.b.Stop() }() // nothing once the tree was taken; the build on a failure
	defer s.opening("")              // the status says what the open does until it is done
	f, rng, err := landscape.LoadFieldRows(ctx, path, o.Import, o.Size, func(done, total int) {
		s.reading(name, done, total)
		if o.Progress != nil {
			o.Progress("read "+name, done, total)
		}
	}, tree.rows)
	if err != nil {
		return err
	}
	read.add("read the heightmap")
	s.opening(fmt.Sprintf("refining %s: levels of detail…", name))
	l := &landscape.Landscape{Stack: stack.Starter(), Field: f}
	// The import found the height's lowest and highest value as it read: no second scan.
	hr := [2]float64{float64(rng.Min), float64(rng.Max)}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	imp := o.Import
	base := baseFor(l, recovery.Base{Kind: recovery.BaseHeightmap, Path: abs, Import: &imp, Size: o.Size})
	if err := s.loadWith(ctx, l, "", nameOf(path), nil, read, &hr, base, tree.b); err != nil {
		return err
	}
	s.mu.Lock()
	s.doc.sources = []string{path}
	s.doc.heightImport = &o
	s.mu.Unlock()
	if s.watch != nil {
		s.watch.refresh()
	}
	return nil
}

// NewFlat starts a flat landscape of size metres at texels × texels, at height metres.
func (s *Session) NewFlat(ctx context.Context, size [2]float64, texels [2]int, height float64) error {
	if err := field.CheckSize(texels[0], texels[1]); err != nil {
		return fmt.Errorf("session: new flat: %w", err)
	}
	g := field.NewGrid(texels[0], texels[1])
	for i := range g.Data {
		g.Data[i] = float32(height)
	}
	f, err := field.New(field.Placement{Size: size}, g)
	if err != nil {
		return fmt.Errorf("session: new flat: %w", err)
	}
	st := stack.New()
	st.Layers = []stack.Layer{stack.NewLayer("ground")}
	st.Layers[0].Tint = stack.Color{0x8a, 0x7a, 0x5a}
	return s.load(ctx, &landscape.Landscape{Stack: st, Field: f}, "", "untitled", nil,
		recovery.Base{Kind: recovery.BaseFlat, FlatSize: size, FlatTexels: texels, FlatHeight: height})
}

// absoluteTextures makes a stack's relative texture paths absolute against dir, so the stack
// means the same files wherever it is saved next.
func absoluteTextures(st *stack.Stack, dir string) {
	for i := range st.Layers {
		for _, p := range []*string{&st.Layers[i].Albedo, &st.Layers[i].Normal, &st.Layers[i].Mask} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(dir, filepath.FromSlash(*p))
			}
		}
	}
}

// load makes l the open landscape: it checks it, builds the viewport scene (stored weights are
// shown at once), chooses the evaluator and starts a full evaluation.
func (s *Session) load(ctx context.Context, l *landscape.Landscape, path, name string, sources []string, base recovery.Base) error {
	return s.loadAfter(ctx, l, path, name, sources, stepTimes{last: time.Now()}, nil, baseFor(l, base))
}

// loadAfter is load after the steps in parts (the read of the file), which it goes on timing;
// heightRange is the height's lowest and highest value when the read found them (nil: scanned
// here); base is where it came from, for its recovery copy.
func (s *Session) loadAfter(ctx context.Context, l *landscape.Landscape, path, name string, sources []string, parts stepTimes, heightRange *[2]float64, base recoveryBase) error {
	return s.loadWith(ctx, l, path, name, sources, parts, heightRange, base, nil)
}

// rowsTree starts a TreeBuilder at a read's first report of complete rows and hands it the
// rows as they complete (field.RowsFunc: on the decoder's goroutine, one call at a time). b is
// read once the read has returned.
type rowsTree struct {
	b      *viewport.TreeBuilder
	failed bool // the grid has no tree (too small: the read refuses it)
}

func (r *rowsTree) rows(g *field.Grid, done int) {
	if r.b == nil && !r.failed {
		b, err := viewport.NewTreeBuilder(g.W, g.H, func(j int) []float32 { return g.Data[j*g.W : (j+1)*g.W] })
		r.b, r.failed = b, err != nil
	}
	if r.b != nil {
		r.b.Rows(done)
	}
}

// loadWith is loadAfter with the viewport's level-of-detail tree under way (nil: SetScene
// builds it): it is taken as late as can be, so the steps before overlap its last rows.
func (s *Session) loadWith(ctx context.Context, l *landscape.Landscape, path, name string, sources []string, parts stepTimes, heightRange *[2]float64, base recoveryBase, tree *viewport.TreeBuilder) error {
	if l.Stack != nil {
		if _, err := landscape.CheckStack(l.Stack, name+": stack"); err != nil {
			return err
		}
		for _, u := range l.Stack.ChannelUses() { // flow is routed from the height, not stored
			if l.Field.Channels[u.Channel] == nil {
				return fmt.Errorf("session: %s: the stack reads channel %q, which the landscape does not have", name, u.Channel)
			}
		}
	}
	st := l.Stack
	if st == nil {
		st = stack.New()
	}
	geo, err := landscape.NewGeometry(st, l.Field, l.Resolution())
	if err != nil {
		return err
	}
	l.Geometry = geo
	parts.add("check and place")
	hr := heightRange
	var bands bandRanges // the height's blocks, kept for the first edit (heightBands)
	if hr == nil {
		r := bands.update(l.Field.Height, image.Rectangle{})
		hr = &r
	}
	ranges := map[string][2]float64{"": *hr}
	parts.add("height range")
	if st.ReadsFlow() {
		// Flow is global: routed once over the whole height here, then bound to its slot like a
		// channel (a stack that starts reading flow later routes it at its first evaluation).
		if _, err := l.Field.FlowPlane(); err != nil {
			return fmt.Errorf("session: %s: %w", name, err)
		}
		parts.add("flow routed over the height")
	}
	scene, err := s.sceneFor(l, ranges[""])
	if err != nil {
		return err
	}
	choice := s.choice(l, &geo)
	ev, err := bake.NewEvaluator(ctx, choice)
	if err != nil {
		return err
	}
	parts.add("choose the evaluator")
	if tree != nil {
		t, err := tree.Tree(ctx)
		if err != nil {
			ev.Release()
			return err
		}
		scene.Tree = t
		parts.add("LOD tree's last rows")
	}
	p := s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	s.rend.gpuMu.Lock()
	err = s.view.SetScene(scene)
	s.rend.gpuMu.Unlock()
	if err != nil {
		ev.Release()
		return err
	}
	if tree != nil {
		parts.add("viewport scene")
	} else {
		parts.add("viewport scene (LOD tree)")
	}
	p.releaseGPU()
	s.fmu.Lock()
	s.land = l
	s.fmu.Unlock()
	p.newEvaluators(ev, choice.Measure, &geo)
	parts.add("evaluators")
	channels := make([]string, 0, len(l.Field.Channels))
	for c := range l.Field.Channels {
		channels = append(channels, c)
	}
	sort.Strings(channels)

	s.mu.Lock()
	s.openParts = parts
	s.ranges = ranges
	s.opens++
	go s.channelRanges(l.Field, s.opens)
	s.recGens++
	s.doc = document{path: path, name: name, stack: l.Stack, channels: channels, baked: l.Stack == nil,
		sources: sources, loaded: true, savedOK: true, recBase: base, recGen: s.recGens}
	s.rec.clearDirty()
	s.rec.step() // the previous landscape's copy goes (its window asked to save first)
	s.hist.clear()
	s.bumpVersion()
	p.drag, p.stroke, p.fieldOps = nil, nil, nil
	p.geo = geo
	p.geoFor = l.Stack
	// The blocks' ranges the open computed: the first sculpt dab reads only its own blocks again
	// (it read the whole grid's, 8 ms of the first dab at 4096² on the H200's host). A stored
	// range computed none: that first edit reads them all.
	p.heightBands = bands
	p.gen++ // a new landscape's weights: no page of another one is shown
	p.stale = map[viewport.PageKey]bool{}
	p.viewTexels = 4 * pageTexels
	p.fullPasses, p.fullNs = 0, 0
	p.overlayChanged = true
	p.wtiles = &tileCache{}
	p.dirty = field.NewDirtySet(geo.Field, s.opts.TileSize, geo.Stack.GradientStep)
	p.status = Status{}
	if l.Stack != nil {
		p.markAllWeights()
	}
	p.layersDirty = false
	p.kick()
	s.mu.Unlock()
	if s.watch != nil {
		s.watch.refresh()
	}
	s.FitCamera(false)
	s.emit(Event{Kind: EventDocument, Message: "Opened " + name})
	// Nothing evaluated yet: the status bar says the first pass is under way. The worker's pass
	// waits for passMu, held until this returns, so its own status cannot come first.
	p.publish(0, false, Pass{})
	return nil
}

// choice is the evaluator the session's options ask for over landscape l: with a stack, Auto
// measures both twins on a block of it and keeps the faster (bake.Measure, which takes the Go
// reference on a software adapter without measuring); without one (baked weights) Auto is the GPU.
func (s *Session) choice(l *landscape.Landscape, geo *landscape.Geometry) bake.Choice {
	c := bake.Choice{Mode: bake.ModeGPU, Device: s.dev}
	switch s.opts.Evaluator {
	case CPU:
		c.Mode = bake.ModeCPU
	case Auto:
		if l.Stack != nil {
			c.Mode = bake.ModeAuto
		}
	}
	if l.Stack != nil {
		c.Measure = &bake.Measure{Stack: l.Stack, Field: l.Field, Geometry: geo}
	}
	return c
}

// newEvaluators makes the page and full-resolution evaluators over ev, the chosen twin, and
// records its mode and measured cost: on the GPU one evaluator for both, and the field's upload
// to the device begun (resident.start): until it has landed, pages are the Go reference's on
// every core, so the first picture does not wait for gigabytes to travel; the full-resolution
// tiles wait for it (landField). passMu is held.
func (p *pipeline) newEvaluators(ev bake.Evaluator, m *bake.Measure, geo *landscape.Geometry) {
	ge, ok := ev.(*bake.GPUEvaluator)
	var ns float64
	if m != nil {
		ns = m.CPUNs
		if ok {
			ns = m.GPUNs
		}
	}
	p.s.mu.Lock()
	p.nsPerTexel = ns
	p.s.mu.Unlock()
	if !ok {
		p.setMode(CPU)
		p.full, p.pages = &cpuEval{}, &cpuEval{}
		return
	}
	// One GPU evaluator for both: the pages write the viewport's slots, the full tiles its own
	// target; its kernels are compiled once. The flow plane is re-routed on its twin too (the
	// GPU flow kernel, or Go where the evaluator keeps Go for flow: a software adapter it chose
	// automatically); the plane routed at open, before the choice, is the Go reference's.
	p.setMode(GPU)
	p.s.land.Field.SetFlowRouter(func(ctx context.Context, g *field.Grid, texel [2]float64) (*field.Grid, error) {
		plane, _, err := ge.Flow(ctx, g, texel)
		return plane, err
	})
	p.gpu = &gpuEval{g: ge.GPU(), res: &p.res, fail: &p.failGPU}
	p.full, p.pages = p.gpu, p.gpu
	p.res.start(p.s, p.s.land, geo, image.Pt(geo.Field.WeightsW/2, geo.Field.WeightsH/2))
}

// sceneFor builds the viewport scene of a landscape: its ground read where it is (ground), the
// layer table and atlas, and the stored weights when there are any (shown until the first pass
// writes pages of the weights).
func (s *Session) sceneFor(l *landscape.Landscape, heightRange [2]float64) (*viewport.Scene, error) {
	f := l.Field
	sc := &viewport.Scene{
		Placement:   viewport.Placement{Size: f.Size, Origin: f.Origin},
		HeightRange: heightRange,
		Ground:      &ground{s: s, l: l},
		WeightsGrid: [2]int{l.Geometry.Field.WeightsW, l.Geometry.Field.WeightsH},
	}
	if w := l.Weights; w != nil {
		sc.Controls[0] = &image.NRGBA{Pix: w.Lo, Stride: 4 * w.W, Rect: image.Rect(0, 0, w.W, w.H)}
		sc.Controls[1] = &image.NRGBA{Pix: w.Hi, Stride: 4 * w.W, Rect: image.Rect(0, 0, w.W, w.H)}
	}
	var layers []terraindata.Layer
	base := l.StackDir
	switch {
	case l.Stack != nil:
		sc.Layers = viewLayers(l.Stack)
		for _, ly := range l.Stack.Layers {
			layers = append(layers, terraindata.Layer{Name: ly.Name, Albedo: ly.Albedo, Normal: ly.Normal, Mask: ly.Mask})
		}
	case l.Baked != nil:
		c, err := terraindata.Open(l.Baked.From)
		if err != nil {
			return nil, err
		}
		bs, err := viewport.SceneFromContainer(c)
		if err != nil {
			return nil, err
		}
		sc.Layers, sc.Atlas = bs.Layers, bs.Atlas
		return sc, nil
	}
	a, err := atlasFor(layers, base)
	if err != nil {
		return nil, err
	}
	sc.Atlas = a
	return sc, nil
}

// viewAtlasSize is the atlas the editor draws with: a quarter of the container's sheet, enough
// for the viewport and quick to pack whenever a texture changes.
var viewAtlasSize = [2]int{1024, 512}

// atlasFor packs the layers' albedo and normal maps for the viewport (nil when none has any).
func atlasFor(layers []terraindata.Layer, base string) (*viewport.Atlas, error) {
	alb, err := terraindata.AtlasSheet("albedo", layers, base, viewAtlasSize)
	if err != nil {
		return nil, err
	}
	nrm, err := terraindata.AtlasSheet("normal", layers, base, viewAtlasSize)
	if err != nil {
		return nil, err
	}
	if alb == nil && nrm == nil {
		return nil, nil
	}
	a := &viewport.Atlas{}
	if alb != nil {
		a.Albedo = alb
	}
	if nrm != nil {
		a.Normal = nrm
	}
	return a, nil
}

// showAtlas repacks the atlas after a layer's texture changed (the worker).
func (p *pipeline) showAtlas(st *stack.Stack) error {
	var layers []terraindata.Layer
	for _, ly := range st.Layers {
		layers = append(layers, terraindata.Layer{Name: ly.Name, Albedo: ly.Albedo, Normal: ly.Normal, Mask: ly.Mask})
	}
	a, err := atlasFor(layers, p.s.land.StackDir)
	if err != nil {
		return err
	}
	return p.s.view.SetAtlas(a)
}

// showHeight tells the viewport the ground changed in rect, height texels (the worker, after
// holes or heights changed there, with Session.fmu released: the viewport reads the ground under
// it). A height change reaches one texel further for the gradient; the viewport sees to that.
func (p *pipeline) showHeight(rect image.Rectangle) {
	p.s.view.HeightChanged(rect)
}

// Save writes the landscape to the container it came from (or was last saved to).
func (s *Session) Save(ctx context.Context, report progress.Func) error {
	path := s.Path()
	if path == "" {
		return fmt.Errorf("session: %s has never been saved: choose where (Save As)", s.Name())
	}
	return s.SaveAs(ctx, path, report)
}

// SaveAs writes the landscape as the container at path, atomically (the old container stays
// until the new one is complete and valid), keeping the landscape's guid. The weights and scatter
// are evaluated afresh from the saved stack and field at full resolution, so what is saved is
// exactly what `strata bake` would make of it, whatever drafts the viewport showed. Edits made
// while it saves are kept for the next save.
func (s *Session) SaveAs(ctx context.Context, path string, report progress.Func) error {
	if report == nil {
		report = progress.Nop
	}
	// The folder must be there: one removed while the landscape was open (a project folder
	// deleted, a drive unmounted) is not made again behind the artist's back.
	if dir := filepath.Dir(path); dir != "" {
		if fi, err := os.Stat(dir); err != nil {
			return fmt.Errorf("session: cannot save %s: its folder %s is gone (%v); nothing was written — choose another folder with Save As", filepath.Base(path), dir, pathReason(err))
		} else if !fi.IsDir() {
			return fmt.Errorf("session: cannot save %s: %s is not a folder; nothing was written", filepath.Base(path), dir)
		}
	}
	snap, version, err := s.snapshot()
	if err != nil {
		return err
	}
	s.mu.Lock()
	mode := s.pipe.mode
	s.mu.Unlock()
	var ev bake.Evaluator
	if snap.Stack != nil {
		// The pipeline's twin, on kernels of the save's own (the pipeline's target stays the
		// viewport's).
		c := bake.Choice{Mode: bake.ModeCPU}
		if mode == GPU {
			c = bake.Choice{Mode: bake.ModeGPU, Device: s.dev}
		}
		if ev, err = bake.NewEvaluator(ctx, c); err != nil {
			return err
		}
		defer ev.Release()
	}
	if s.watch != nil {
		s.watch.ownSave(path, true)
		defer s.watch.ownSave(path, false)
	}
	ro := bake.RebakeOptions{EvalOptions: bake.EvalOptions{Options: bake.Options{Resolution: snap.Resolution(), Progress: report},
		Evaluator: ev}}
	if s.World() != nil && path == s.Path() {
		// A world's cell in place: its save takes turns with `strata world bake` of the cell.
		ro.Lock = terraindata.LockPath(path)
	}
	// The one save that evaluates (bake.Rebake, as strata bake and bake --from): the ground is
	// written while the stack is evaluated afresh at full resolution.
	if _, err := bake.Rebake(ctx, snap, path, ro); err != nil {
		return err
	}
	s.fmu.Lock()
	s.land.GUID = snap.GUID
	abs, aerr := filepath.Abs(path)
	if aerr != nil {
		abs = path
	}
	saved := baseFor(s.land, recovery.Base{Kind: recovery.BaseContainer, Path: abs})
	s.fmu.Unlock()
	s.mu.Lock()
	if s.doc.world != nil && path == s.doc.path {
		s.doc.worldWarned = false // the next edit is a new divergence from the world's sources
	} else {
		s.doc.world = nil
		s.doc.name = nameOf(path)
	}
	s.doc.path = path
	if s.version == version {
		s.doc.modified = false
		s.doc.savedAt, s.doc.savedOK = s.hist.mark(), true
		// The saved container is the recovery base now: the copy goes (recovery.go).
		s.recGens++
		s.doc.recBase, s.doc.recGen = saved, s.recGens
		s.rec.clearDirty()
		s.rec.step()
	} else {
		s.doc.savedOK = false // edited while saving: which step was saved is not known
	}
	s.doc.sources = []string{path}
	s.mu.Unlock()
	if s.watch != nil {
		s.watch.refresh()
	}
	s.emit(Event{Kind: EventDocument, Message: "Saved " + path})
	return nil
}

// pathReason is why a file operation failed, without the path the message already names.
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// snapshot copies what a save writes, with the worker idle so no half-applied edit is copied.
func (s *Session) snapshot() (*landscape.Landscape, uint64, error) {
	p := s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	s.mu.Lock()
	if !s.doc.loaded {
		s.mu.Unlock()
		return nil, 0, errNoLandscape
	}
	if p.stroke != nil || p.drag != nil {
		s.mu.Unlock()
		return nil, 0, fmt.Errorf("session: finish the stroke or drag before saving")
	}
	ops, st := p.takeOps(), s.doc.stack
	s.mu.Unlock()
	// Field edits still queued are part of what the artist sees: apply them first.
	p.applyFieldOps(ops, st)
	s.mu.Lock()
	version, st := s.version, s.doc.stack
	s.mu.Unlock()
	s.fmu.RLock()
	defer s.fmu.RUnlock()
	l := s.land
	f := &field.Field{Placement: l.Field.Placement, Height: l.Field.Height.Clone(), Channels: map[string]*field.Grid{}}
	for k, g := range l.Field.Channels {
		f.Channels[k] = g.Clone()
	}
	snap := &landscape.Landscape{Stack: st, StackDir: l.StackDir, Field: f, GUID: l.GUID, AtlasSize: l.AtlasSize, Baked: l.Baked, Script: l.Script}
	if l.Holes != nil {
		snap.Holes = append([]bool(nil), l.Holes...)
	}
	if snap.Stack == nil {
		snap.Geometry, snap.Weights, snap.Scatter = l.Geometry, l.Weights, l.Scatter
	} else {
		snap.Geometry = l.Geometry
	}
	return snap, version, nil
}

// takeOps removes the queued field edits. s.mu is held.
func (p *pipeline) takeOps() []fieldOp {
	ops := p.fieldOps
	p.fieldOps = nil
	return ops
}

// StartStack gives a baked landscape (a container with no stack) a stack: one layer per baked
// surface with its tint and tiling and no rules, ready for rules. Its first evaluation replaces
// the baked weights; the history starts again, since the baked weights cannot be rebuilt by an
// undo.
func (s *Session) StartStack() error {
	s.fmu.RLock()
	l := s.land
	var baked *landscape.Baked
	if l != nil {
		baked = l.Baked
	}
	s.fmu.RUnlock()
	if baked == nil {
		return fmt.Errorf("session: this landscape already has a stack")
	}
	st := stack.New()
	for i, bl := range baked.Layers {
		ly := stack.NewLayer(bl.Name)
		if c, err := stack.ParseColor(bl.Tint); err == nil {
			ly.Tint = c
		} else {
			ly.Tint = stack.Color{uint8(40 + 25*i), uint8(90 + 15*i), uint8(60 + 20*i)}
		}
		if bl.Tiling > 0 {
			ly.Tiling = bl.Tiling
		}
		for _, m := range []struct {
			src string
			dst *string
		}{{bl.Albedo, &ly.Albedo}, {bl.Normal, &ly.Normal}, {bl.Mask, &ly.Mask}} {
			if m.src == "" {
				continue
			}
			p := m.src
			if !filepath.IsAbs(p) {
				p = filepath.Join(baked.From, filepath.FromSlash(p))
			}
			if _, err := os.Stat(p); err == nil {
				*m.dst = p
			}
		}
		st.Layers = append(st.Layers, ly)
	}
	if len(st.Layers) == 0 {
		st.Layers = []stack.Layer{stack.NewLayer("ground")}
	}
	p := s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	s.fmu.Lock()
	l.Stack, l.Baked = st, nil
	s.fmu.Unlock()
	s.mu.Lock()
	s.doc.stack, s.doc.baked = st, false
	s.hist.clear()
	s.doc.savedOK = false // not undoable: the container on disk stays baked
	s.changed()
	p.geoFor = nil
	p.newGeneration()
	p.layersDirty, p.atlasDirty = true, true
	p.kick()
	s.mu.Unlock()
	s.emit(Event{Kind: EventDocument, Message: "Started a stack"})
	return nil
}
