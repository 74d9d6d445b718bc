package world

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
	"strata/terraindata"
)

// CellResult is what a cell bake made.
type CellResult struct {
	Index     int
	Path      string // the container
	Weights   [2]int // the cell's weights grid
	Backend   string // the evaluator, in words
	Instances []int  // per population
	Warnings  []stack.Problem
	// Phases are the bake's steps and their wall times: read (the windows of the sources),
	// evaluate (weights and densities), place, write (encode, validate, swap in).
	Phases []bake.Phase
}

// blocks are the parts of the world a cell bake touches.
type blocks struct {
	cell    field.Rect // the cell's weights texels (written)
	cellH   field.Rect // the cell's height texels (written)
	eval    field.Rect // weights texels evaluated: the cell and the reach of its sites
	read    field.Rect // height texels read: eval's apron, the sites' height taps, the height edges
	spacing []float32  // per population, the world's spacing
}

// blocksOf is what cell i needs of the world for stack s.
func (w *World) blocksOf(i int, s *stack.Stack, geo *landscape.Geometry) (blocks, error) {
	c := &w.CellList[i]
	b := blocks{cell: c.WeightsRect(), cellH: c.HeightRect()}
	wholeH := field.Rect{I1: w.HeightGrid[0], J1: w.HeightGrid[1]}
	if err := w.checkPopulations(s); err != nil {
		return b, err
	}
	b.eval = b.cell
	b.read = b.cellH.Grow(1)
	for _, pp := range w.Populations {
		sp := float32(pp.Spacing)
		b.spacing = append(b.spacing, sp)
		if sp > 0 {
			d, h := scatter.PlaceWindows(&geo.Field, sp, b.cell)
			b.eval = b.eval.Union(d)
			b.read = b.read.Union(h)
		}
	}
	b.read = b.read.Union(geo.Field.ApronRect(b.eval, geo.Stack.GradientStep)).Intersect(wholeH)
	return b, nil
}

// checkPopulations refuses a stack whose populations are not the plan's (renamed, added or
// removed since world plan): the plan's spacing would belong to other populations.
func (w *World) checkPopulations(s *stack.Stack) error {
	if len(s.Populations) != len(w.Populations) {
		return fmt.Errorf("world: %s: the stack has %d populations, the plan %d: re-run strata world plan", w.Dir, len(s.Populations), len(w.Populations))
	}
	for k := range s.Populations {
		if s.Populations[k].Name != w.Populations[k].Name {
			return fmt.Errorf("world: %s: populations[%d] is %q in the stack, %q in the plan: re-run strata world plan",
				w.Dir, k, s.Populations[k].Name, w.Populations[k].Name)
		}
	}
	return nil
}

// BakeCell bakes cell i: reads its window of the sources (with the apron its taps and sites
// reach), evaluates it with the whole world's geometry, places the sites whose centres fall in
// the cell on the world's site grid at the plan's spacing, and writes the cell's container —
// atomically (terraindata.Save) and under the cell's lock, so a task killed at any moment leaves
// the old container or the new one, and two tasks baking the same cell at once write one after
// the other, the same bytes (the cell's guid derives from the world's). Idempotent: baking again
// from the same sources rewrites the same bytes. A ctx cancelled before the new container is
// swapped in leaves the old one (landscape.WriteContext).
func (w *World) BakeCell(ctx context.Context, i int, o Options) (*CellResult, error) {
	path, err := w.Cell(i)
	if err != nil {
		return nil, err
	}
	s, stackDir, warnings, err := w.LoadStack()
	if err != nil {
		return nil, err
	}
	geo, err := w.geometry(s)
	if err != nil {
		return nil, err
	}
	b, err := w.blocksOf(i, s, &geo)
	if err != nil {
		return nil, err
	}
	dev, err := o.newEvaluator(ctx)
	if err != nil {
		return nil, err
	}
	tm := &bake.Timings{}
	ev, err := w.evaluate(ctx, dev, tm, s, geo, b.eval, b.read, len(s.Populations) > 0, &o)
	dev.Release() // before placing and writing: with a software Vulkan its memory is this process's
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	l, counts, err := w.cellLandscape(ctx, i, s, stackDir, ev, &b, &o)
	if err != nil {
		return nil, err
	}
	edge := heightEdge(ev.wins.Height, b.cellH)
	tm.Since("place", t0)
	backend := ev.backend
	ev = nil
	runtime.GC() // the evaluation's blocks are garbage now: don't let the write's peak stack on them
	t0 = time.Now()
	// The save holds the cell's lock file from its start to its swap, so two tasks baking one
	// cell, or one and the editor saving it, take turns. The cell keeps its instances (the
	// world's placement) and the ground beyond its edges (seam-exact gradients).
	wo := landscape.WriteOptions{Progress: o.Progress, Lock: w.lockPath(i), HeightEdge: edge, Instances: true}
	if err := landscape.WriteContext(ctx, path, l, wo); err != nil {
		return nil, err
	}
	tm.Since("write", t0)
	return &CellResult{Index: i, Path: path, Weights: [2]int{b.cell.W(), b.cell.H()}, Backend: backend, Instances: counts,
		Warnings: warnings, Phases: tm.Phases()}, nil
}

// cellLandscape is cell i's container content: its field (height, channels) and weights cut out
// of the evaluation, and each population's density and instances.
func (w *World) cellLandscape(ctx context.Context, i int, s *stack.Stack, stackDir string, ev *evaluation, b *blocks, o *Options) (*landscape.Landscape, []int, error) {
	c := &w.CellList[i]
	hwin := ev.wins.Height
	hg, err := hwin.Crop(b.cellH)
	if err != nil {
		return nil, nil, err
	}
	f, err := field.New(field.Placement{Size: c.Size, Origin: c.Origin}, hg)
	if err != nil {
		return nil, nil, fmt.Errorf("world: cell %d: %w", i, err)
	}
	for name, win := range ev.wins.Channels {
		g, err := win.Crop(b.cellH)
		if err != nil {
			return nil, nil, err
		}
		if err := f.AddChannel(name, g); err != nil {
			return nil, nil, fmt.Errorf("world: cell %d: %w", i, err)
		}
	}
	l := &landscape.Landscape{Stack: s, StackDir: stackDir, Field: f, Weights: ev.cropWeights(b.cell),
		GUID: w.cellGUID(i)}
	report := o.report()
	counts := make([]int, len(s.Populations))
	for p := range s.Populations {
		pop := &s.Populations[p]
		report("place", p, len(s.Populations))
		if mx, plan := ev.maxOver(p, b.cell), float32(w.Populations[p].MaxDensity); mx > plan {
			return nil, nil, fmt.Errorf("world: %s: cell %d: population %q reaches %g instances/m², more than the %g the plan's spacing serves (%s): re-run strata world plan",
				w.Dir, i, pop.Name, mx, plan, w.Spacing)
		}
		params := scatter.Params{Seed: pop.Seed, Scale: [2]float32{float32(pop.Scale[0]), float32(pop.Scale[1])}, Spacing: b.spacing[p]}
		m, n, err := scatter.PlaceWindow(ctx, params, &ev.geo.Field, ev.densityWindow(p), hwin, b.cell)
		if err != nil {
			return nil, nil, fmt.Errorf("world: population %q: %w", pop.Name, err)
		}
		dens, err := ev.densityWindow(p).Crop(b.cell)
		if err != nil {
			return nil, nil, err
		}
		l.Scatter = append(l.Scatter, landscape.Population{Name: pop.Name, Mesh: pop.Mesh, Seed: pop.Seed, Scale: pop.Scale,
			Density: dens, Spacing: params.Spacing, Matrices: m, Count: n})
		counts[p] = n
	}
	report("place", len(s.Populations), len(s.Populations))
	return l, counts, nil
}

// heightEdge is the ground just outside block r of the height window (nil on a side where the
// world ends), for the seam-exact gradients of the cell's height payload.
func heightEdge(win *field.Window, r field.Rect) *terraindata.HeightEdge {
	wr := win.Rect()
	col := func(i int) []float32 {
		if i < wr.I0 || i >= wr.I1 {
			return nil
		}
		out := make([]float32, r.H())
		for j := r.J0; j < r.J1; j++ {
			out[j-r.J0] = win.Data[(j-wr.J0)*win.W+i-wr.I0]
		}
		return out
	}
	row := func(j int) []float32 {
		if j < wr.J0 || j >= wr.J1 {
			return nil
		}
		o := (j-wr.J0)*win.W + r.I0 - wr.I0
		return append([]float32(nil), win.Data[o:o+r.W()]...)
	}
	return &terraindata.HeightEdge{Left: col(r.I0 - 1), Right: col(r.I1), Down: row(r.J0 - 1), Up: row(r.J1)}
}
