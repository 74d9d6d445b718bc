package stack

import "strata/field"

// Taps fills a compiled stack's TexelInputs at weights texels of one tile, reading the height and
// channels through the tile's apron-inclusive block exactly as the kernels read their tile buffers,
// and computing only what the stack needs (height, slope and curvature from the same taps, each
// channel). The layer evaluator (bake.Reference) and the density evaluator (scatter.Density) share
// it, so the two Go references cannot read the field differently. A Taps keeps per-tile tables
// and scratch for its rows (taps_fast.go): each goroutine uses its own, built for its tile.
type Taps struct {
	c        *Compiled
	height   field.Sampler
	chans    [4]field.Sampler
	useChan  [4]bool
	needH    bool
	needS    bool
	needC    bool
	needA    bool
	gradStep float32
	slopes   *field.Grid // UseSlopes: the weights grid's slopes, read instead of sampled
	fast     fastTaps    // the row tables of FillRow's fast paths (taps_fast.go)
}

// Taps prepares reading for tile t of geometry fg: height is the height grid and chans the grids
// bound to chan0..chan3 (nil or height for unused slots).
func (c *Compiled) Taps(fg *field.Geometry, height *field.Grid, chans [4]*field.Grid, t field.Tile) Taps {
	var wins [4]*field.Window
	for k, g := range chans {
		if g != nil {
			wins[k] = &field.Window{Grid: g}
		}
	}
	return c.TapsWindow(fg, &field.Window{Grid: height}, wins, t)
}

// TapsWindow is Taps over windows of the grids (a world cell's share of its sources): each window
// must hold tile t's buffer block, which it then reads exactly as the whole grid would be read.
func (c *Compiled) TapsWindow(fg *field.Geometry, height *field.Window, chans [4]*field.Window, t field.Tile) Taps {
	n := c.needs
	tp := Taps{
		c:        c,
		height:   fg.WindowSampler(height, t.BufI0, t.BufJ0, t.BufW, t.BufH),
		needH:    n&NeedHeight != 0,
		needS:    n&NeedSlope != 0,
		needC:    n&NeedCurvature != 0,
		needA:    n&NeedAspect != 0,
		gradStep: c.Geometry.GradientStep,
	}
	for k := range tp.chans {
		if n&NeedChan(k) != 0 && chans[k] != nil {
			tp.chans[k] = fg.WindowSampler(chans[k], t.BufI0, t.BufJ0, t.BufW, t.BufH)
			tp.useChan[k] = true
		}
	}
	tp.prepare(t.I0, t.W)
	if int64(t.BufW)*int64(t.BufH) > scanRatio*int64(t.W)*int64(t.H) {
		// A tile of a coarse level of the pyramid reads a few texels of a block 4^k times its
		// size: scanning the block for Tame would cost more than blending every tap (At, the
		// same numbers). A 16K field's coarsest pages scanned all of it, page after page.
		tp.fast.tame = [5]int8{-1, -1, -1, -1, -1}
	}
	return tp
}

// scanRatio is how many height texels per weights texel a tile's block may hold for its Tame
// scan to pay (a level-k tile's block holds about 4^k).
const scanRatio = 32

// FillRow fills ins[k] for weights texels (i0+k, j), k < len(ins): their positions and every input
// the stack needs. Layers (a population's final layer weights) are left to the caller. A row at a
// time keeps the per-texel path free of calls and of re-reading what the stack needs.
//
// A row inside the tile's interior takes the fast path of taps_fast.go, which gives the same
// numbers bit for bit; fillRowGeneral is the definition.
func (tp *Taps) FillRow(j, i0 int, ins []TexelInputs) {
	if cols, ok := tp.fast.columns(i0, len(ins)); ok {
		tp.fillRowFast(j, i0, cols, ins, nil)
		return
	}
	tp.fillRowGeneral(j, i0, ins)
}

// fillRowGeneral is FillRow as docs/design.md writes it: each texel's position, then each input
// through the sampler's Bilinear, Slope, Curvature and Aspect.
func (tp *Taps) fillRowGeneral(j, i0 int, ins []TexelInputs) {
	h, g := &tp.height, tp.gradStep
	needH, needS, needC := tp.needH, tp.needS, tp.needC
	geo := &tp.c.Geometry
	var known []float32 // the row's slopes, when UseSlopes gave them
	if needS && tp.slopes != nil {
		o := j*tp.slopes.W + i0
		known = tp.slopes.Data[o : o+len(ins)]
		needS = false
	}
	for k := range ins {
		in := &ins[k]
		in.X, in.Z = geo.TexelPos(uint32(i0+k), uint32(j))
		if needH {
			in.Height = h.Bilinear(in.X, in.Z)
		}
		switch {
		case needS && needC:
			in.Slope, in.Curvature = h.SlopeCurvature(in.X, in.Z, g)
		case needS:
			in.Slope = h.Slope(in.X, in.Z, g)
		case needC:
			in.Curvature = h.Curvature(in.X, in.Z, g)
		}
		if tp.needA {
			in.Aspect = h.Aspect(in.X, in.Z, g)
		}
		if known != nil {
			in.Slope = known[k]
		}
	}
	for c := range tp.chans {
		if !tp.useChan[c] {
			continue
		}
		cs := &tp.chans[c]
		for k := range ins {
			ins[k].Chan[c] = cs.Bilinear(ins[k].X, ins[k].Z)
		}
	}
}

// UseSlopes makes FillRow read each texel's slope from g, a grid of the whole weights grid holding
// what SlopeRow computes there (the same numbers: field.Sampler.Slope is a function of the height
// and the geometry alone), instead of sampling the height four times per texel. The live editor
// keeps one across evaluations (bake.Slopes): a rule edit does not move the ground.
func (tp *Taps) UseSlopes(g *field.Grid) { tp.slopes = g }

// SlopeRow writes the slope of weights texels (i0+k, j), k < len(out), into out: what FillRow
// computes for a stack that reads slope, whatever this stack reads.
func (tp *Taps) SlopeRow(j, i0 int, out []float32) {
	if cols, ok := tp.fast.columns(i0, len(out)); ok {
		tp.slopeRowFast(j, cols, out)
		return
	}
	tp.slopeRowGeneral(j, i0, out)
}

// slopeRowGeneral is SlopeRow through field.Sampler.Slope, the definition.
func (tp *Taps) slopeRowGeneral(j, i0 int, out []float32) {
	h, g := &tp.height, tp.gradStep
	geo := &tp.c.Geometry
	for k := range out {
		x, z := geo.TexelPos(uint32(i0+k), uint32(j))
		out[k] = h.Slope(x, z, g)
	}
}
