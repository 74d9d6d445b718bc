package stack

import "strata/field"

// The fast paths of Taps.FillRow and Taps.SlopeRow. They give the numbers of fillRowGeneral and
// slopeRowGeneral (the definition: Bilinear, Slope and Curvature per texel) bit for bit, with
// less work per texel, for a row inside the tile's interior:
//
//   - Positions and the x halves of every tap (field.Axis: neighbour columns and fraction) depend
//     on the column alone, the z halves on the row alone: a tile computes its columns' once
//     (prepare), a row its own once, and a tap is then field.Sampler.At, the blend Bilinear
//     ends with. Same float32 operations in the same order, so exact for every field.
//   - Where a tap's fractions are exactly 0 along both axes and the block is field.Sampler.Tame,
//     the blend is its first neighbour (field.Sampler.Texel; proof in field/sampler_fast.go).
//     That is every tap when the weights grid is the height grid and gradientStep the texel size
//     (the defaults), at every level of the pyramid. Whether the fraction is 0 is tested for
//     each column and row, never assumed: float32 rounding of a position, a finer or coarser
//     weights grid, or another step make it not so, and those taps take At.
//   - The step's constants 0.5/g and 1/(g·g) are computed once (field.SlopeK, field.AspectK,
//     field.CurvatureK); slope, aspect and curvature share one set of taps.

// column is one weights column of a tile: its texels' world x and the x halves of the height's
// taps at x-g, x and x+g.
type column struct {
	x       float32
	m, c, p field.Axis
	centre  bool // c is on a texel centre
	exact   bool // m, c and p are
}

// fastTaps is what Taps keeps for the fast paths: the tile's columns and what a row needs.
type fastTaps struct {
	i0       int      // the weights column of cols[0]
	cols     []column // the tile's interior columns; nil: no fast path
	kS, kC   float32  // 0.5/g and 1/(g·g), as SlopeFromTaps and CurvatureFromTaps compute them
	chanAxes [4]bool  // channel k's sampler places taps as the height's does (one set of axes)
	// tame[0] is the height block's field.Sampler.Tame, tame[1+k] channel k's: 0 not yet known
	// (the scan runs when a row first needs it), 1 tame, -1 not.
	tame [5]int8
	// WeightsRow's scratch for one row (grow): the gradient magnitudes, what each texel has left
	// after the layers so far (share 0 at the end), whether its slope is computed, the shares.
	grads, rem []float32
	known      []bool
	share      [8][]float32
}

// prepare computes the columns of weights texels [i0, i0+w) for the fast paths.
func (tp *Taps) prepare(i0, w int) {
	if w <= 0 || i0 < 0 {
		return
	}
	f, h, g, geo := &tp.fast, &tp.height, tp.gradStep, &tp.c.Geometry
	f.i0 = i0
	f.cols = make([]column, w)
	for k := range f.cols {
		x, _ := geo.TexelPos(uint32(i0+k), 0) // x depends on the column alone
		col := column{x: x, m: h.AxisX(x - g), c: h.AxisX(x), p: h.AxisX(x + g)}
		col.centre = col.c.Exact()
		col.exact = col.centre && col.m.Exact() && col.p.Exact()
		f.cols[k] = col
	}
	f.kS = 0.5 / g
	f.kC = 1 / float32(g*g)
	for k := range tp.chans {
		f.chanAxes[k] = tp.useChan[k] && tp.chans[k].SameAxes(h)
	}
}

// columns returns the columns of weights texels [i0, i0+n), or false when they are not all the
// tile's.
func (f *fastTaps) columns(i0, n int) ([]column, bool) {
	k := i0 - f.i0
	if f.cols == nil || k < 0 || n < 0 || n > len(f.cols)-k {
		return nil, false
	}
	return f.cols[k : k+n], true
}

// tame reports field.Sampler.Tame of the height (k = 0) or channel k-1, scanning it once.
func (tp *Taps) tame(k int) bool {
	if tp.fast.tame[k] == 0 {
		s := &tp.height
		if k > 0 {
			s = &tp.chans[k-1]
		}
		tp.fast.tame[k] = -1
		if s.Tame() {
			tp.fast.tame[k] = 1
		}
	}
	return tp.fast.tame[k] > 0
}

// fillRowFast is fillRowGeneral for weights texels (i0+k, j), whose columns are cols, bit for bit
// (see the top of this file). With grads not nil a slope is left to be computed from its gradient
// magnitude, written to grads[k] (ins[k].Slope is NaN then; Taps.WeightsRow).
func (tp *Taps) fillRowFast(j, i0 int, cols []column, ins []TexelInputs, grads []float32) {
	ins = ins[:len(cols)]
	h, g := &tp.height, tp.gradStep
	needH, needS, needC := tp.needH, tp.needS, tp.needC
	var known []float32 // the row's slopes, when UseSlopes gave them
	if needS && tp.slopes != nil {
		o := j*tp.slopes.W + i0
		known = tp.slopes.Data[o : o+len(ins)]
		needS = false
	}
	_, pz := tp.c.Geometry.TexelPos(0, uint32(j)) // z depends on the row alone
	zc := h.AxisZ(pz)
	needG := needS || needC || tp.needA
	var zm, zp field.Axis
	if needG {
		zm, zp = h.AxisZ(pz-g), h.AxisZ(pz+g)
	}
	// Texel instead of At: the row's fractions 0 and the block tame; then per column.
	rowExact := (needH || needG) && zc.Exact() && (!needG || zm.Exact() && zp.Exact()) && tp.tame(0)
	kS, kC := tp.fast.kS, tp.fast.kC
	for k := range ins {
		in, col := &ins[k], &cols[k]
		in.X, in.Z = col.x, pz
		var hc, hxp, hxm, hzp, hzm float32
		if rowExact && col.centre && (!needG || col.exact) {
			if needH || needC {
				hc = h.Texel(col.c, zc)
			}
			if needG {
				hxp, hxm = h.Texel(col.p, zc), h.Texel(col.m, zc)
				hzp, hzm = h.Texel(col.c, zp), h.Texel(col.c, zm)
			}
		} else {
			if needH || needC {
				hc = h.At(col.c, zc)
			}
			if needG {
				hxp, hxm = h.At(col.p, zc), h.At(col.m, zc)
				hzp, hzm = h.At(col.c, zp), h.At(col.c, zm)
			}
		}
		if needH {
			in.Height = hc
		}
		if needS {
			if grads != nil {
				grads[k] = field.GradK(hxp, hxm, hzp, hzm, kS)
				in.Slope = nan32
			} else {
				in.Slope = field.SlopeK(hxp, hxm, hzp, hzm, kS)
			}
		}
		if needC {
			in.Curvature = field.CurvatureK(hxp, hxm, hzp, hzm, hc, kC)
		}
		if tp.needA {
			in.Aspect = field.AspectK(hxp, hxm, hzp, hzm, kS)
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
		if !tp.fast.chanAxes[c] {
			for k := range ins {
				ins[k].Chan[c] = cs.Bilinear(ins[k].X, ins[k].Z)
			}
			continue
		}
		exact := zc.Exact() && tp.tame(1+c)
		for k := range ins {
			if col := &cols[k]; exact && col.centre {
				ins[k].Chan[c] = cs.Texel(col.c, zc)
			} else {
				ins[k].Chan[c] = cs.At(col.c, zc)
			}
		}
	}
}

// slopeRowFast is slopeRowGeneral for the texels of cols in row j, bit for bit.
func (tp *Taps) slopeRowFast(j int, cols []column, out []float32) {
	out = out[:len(cols)]
	h, g := &tp.height, tp.gradStep
	_, pz := tp.c.Geometry.TexelPos(0, uint32(j))
	zc, zm, zp := h.AxisZ(pz), h.AxisZ(pz-g), h.AxisZ(pz+g)
	rowExact := zc.Exact() && zm.Exact() && zp.Exact() && tp.tame(0)
	kS := tp.fast.kS
	for k := range out {
		col := &cols[k]
		var hxp, hxm, hzp, hzm float32
		if rowExact && col.exact {
			hxp, hxm = h.Texel(col.p, zc), h.Texel(col.m, zc)
			hzp, hzm = h.Texel(col.c, zp), h.Texel(col.c, zm)
		} else {
			hxp, hxm = h.At(col.p, zc), h.At(col.m, zc)
			hzp, hzm = h.At(col.c, zp), h.At(col.c, zm)
		}
		out[k] = field.SlopeK(hxp, hxm, hzp, hzm, kS)
	}
}
