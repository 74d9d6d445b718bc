package session

import (
	"context"
	"fmt"
	"image"
	"sort"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/recovery"
	"strata/stack"
	"strata/viewport"
)

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
	old := s.land
	s.land = l
	s.fmu.Unlock()
	retireReplaced(old, l)
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
	p.fullPasses, p.fullNs, p.dabRest = 0, 0, 0
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

// retireReplaced gives back the planes on disk of old, the landscape the session just dropped
// for l (File → Open, New, a reload, a recovery): its height, channels, flow, holes, weights and
// densities (landscape.Retire) — the blocks on disk and the pages at once, instead of at some
// later collection. Retired, not unmapped: a slice of them may outlive the swap (a viewport
// overlay bound to a grid, a goroutine finishing a range scan of the old channels), and reads
// zeros rather than faulting. Planes l shares with old (a caller opening the same grids again)
// are kept. The session owns what it opened: nothing else is to read old's planes afterwards.
func retireReplaced(old, l *landscape.Landscape) {
	if old == nil || old == l {
		return
	}
	keep := map[*field.Grid]bool{}
	if l.Field != nil {
		keep[l.Field.Height] = true
		for _, g := range l.Field.Channels {
			keep[g] = true
		}
	}
	shared := l.Field == old.Field || (old.Field != nil && keep[old.Field.Height])
	if old.Field != nil && !shared {
		for _, g := range old.Field.Channels {
			if keep[g] {
				shared = true
			}
		}
	}
	if len(old.Holes) > 0 && len(l.Holes) > 0 && &old.Holes[0] == &l.Holes[0] {
		shared = true
	}
	if shared || (old.Weights != nil && old.Weights == l.Weights) {
		return // a caller's landscape over the same grids: the collector decides
	}
	old.Retire()
}
