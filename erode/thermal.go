package erode

import (
	"context"
	"errors"
	"fmt"
	"math"

	"strata/field"
	"strata/progress"
)

// The 8 neighbours thermal erosion moves material to: offsets, and which texel size each step's
// length takes (0: along X, 1: along Z, 2: the diagonal).
var (
	nbOff  = [8][2]int{{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}}
	nbKind = [8]int{2, 1, 2, 0, 0, 2, 1, 2}
)

// SettleRate is the fraction of its largest excess a texel sheds per settle iteration.
const SettleRate = 0.4

const settleRate = SettleRate

// talusStep is one thermal step's constants: the 8 neighbours as index deltas (nbOff's order),
// the drop at talus to each (the excess is the drop beyond it), the drop at talus + tol (tol < 0:
// none asked; tol says whether one was), and the rate (the fraction of a texel's largest excess
// it sheds). Thermal steps compare float32 heights in L (s.hgt): at 10⁴ L a drop is resolved to
// 10⁻³ L, far below any talus excess that matters, and the material moved is added to the
// float32 change exactly as the first pass decided it.
type talusStep struct {
	delta       [8]int
	lim, limTol [8]float32 // limTol: +Inf when no tolerance is asked
	tol         bool
	rate        float64
}

func (s *sim) talusStep(talus, tol, rate float64) talusStep {
	t := talusStep{rate: rate, tol: tol >= 0}
	t.lim, t.limTol = talusDrops(s.px, s.pz, talus, tol)
	for d, o := range nbOff {
		t.delta[d] = o[1]*s.w + o[0]
	}
	return t
}

// talusDrops are a thermal step's drops at talus and at talus + tol (tol < 0: +Inf) to each of
// the 8 neighbours, in L, for pipe lengths px, pz.
func talusDrops(px, pz, talus, tol float64) (lim, limTol [8]float32) {
	dist := [3]float64{px, pz, math.Hypot(px, pz)}
	tan, tanTol := math.Tan(talus*math.Pi/180), math.Tan((talus+tol)*math.Pi/180)
	for d := range nbOff {
		lim[d] = float32(tan * dist[nbKind[d]])
		limTol[d] = float32(math.Inf(1))
		if tol >= 0 {
			limTol[d] = float32(tanTol * dist[nbKind[d]])
		}
	}
	return lim, limTol
}

// TalusDrops are talusStep's drops for a grid of texel sizes texel (the GPU twin's constants):
// the drop in L at talus degrees to each of the 8 neighbours in the order (-1,-1), (0,-1),
// (1,-1), (-1,0), (1,0), (-1,1), (0,1), (1,1), and at talus + tol (tol < 0: +Inf, no check).
func TalusDrops(texel [2]float64, talus, tol float64) (lim, limTol [8]float32) {
	_, px, pz := Geometry(texel)
	return talusDrops(px, pz, talus, tol)
}

// thermalOutRow is a thermal step's first pass over row j: every texel's outgoing material
// (rate · its largest excess over talus) and its summed excess, from the ground's float32 copy
// s.hgt; it reports whether the row sheds anything and whether a slope to a neighbour in it
// exceeds talus + tol. Interior texels take the 8 neighbours unrolled, in nbOff's order, the
// excess as max(e, 0): adding +0 to the sum and comparing it with the largest changes neither
// (both are ≥ +0), so the bytes are those of the walk that adds only positive excess.
func (s *sim) thermalOutRow(t *talusStep, j int) (active, steep bool) {
	w, h := s.w, s.h
	if j == 0 || j == h-1 || w < 3 {
		for i := range w {
			a, st := s.thermalOutTexel(t, i, j)
			active, steep = active || a, steep || st
		}
		return active, steep
	}
	active, steep = s.thermalOutTexel(t, 0, j)
	hD, hC, hU := rowOf(s.hgt, j-1, w), rowOf(s.hgt, j, w), rowOf(s.hgt, j+1, w)
	out, excess := rowOf(s.out, j, w), rowOf(s.excess, j, w)
	l0, l1, l2, l3, l4, l5, l6, l7 := t.lim[0], t.lim[1], t.lim[2], t.lim[3], t.lim[4], t.lim[5], t.lim[6], t.lim[7]
	rate, tol := t.rate, t.tol
	for i := 1; i < w-1; i++ {
		hk := hC[i]
		d0, d1, d2 := hk-hD[i-1], hk-hD[i], hk-hD[i+1]
		d3, d4 := hk-hC[i-1], hk-hC[i+1]
		d5, d6, d7 := hk-hU[i-1], hk-hU[i], hk-hU[i+1]
		if tol && !steep {
			lt := &t.limTol
			steep = d0 > lt[0] || d1 > lt[1] || d2 > lt[2] || d3 > lt[3] || d4 > lt[4] || d5 > lt[5] || d6 > lt[6] || d7 > lt[7]
		}
		// Each excess's bits as an int32: they order as the floats do where the float is
		// positive, and are ≤ 0 where it is not (+0, −0 or negative).
		b0, b1, b2, b3 := f32bits(d0-l0), f32bits(d1-l1), f32bits(d2-l2), f32bits(d3-l3)
		b4, b5, b6, b7 := f32bits(d4-l4), f32bits(d5-l5), f32bits(d6-l6), f32bits(d7-l7)
		most := max(max(max(b0, b1), max(b2, b3)), max(max(b4, b5), max(b6, b7)))
		if most <= 0 { // nothing above talus: nothing shed
			out[i], excess[i] = 0, 0
			continue
		}
		var sum float32 // the positive excesses, in nbOff's order (a non-positive one adds +0)
		sum += posBits(b0)
		sum += posBits(b1)
		sum += posBits(b2)
		sum += posBits(b3)
		sum += posBits(b4)
		sum += posBits(b5)
		sum += posBits(b6)
		sum += posBits(b7)
		o := float32(rate * float64(math.Float32frombits(uint32(most))))
		out[i] = o
		var share float32 // the share of each unit of excess: o / Σ excess
		if o > 0 {
			share = o / sum
			active = true
		}
		excess[i] = share
	}
	a, st := s.thermalOutTexel(t, w-1, j)
	return active || a, steep || st
}

// f32bits is x's bits as an int32.
func f32bits(x float32) int32 { return int32(math.Float32bits(x)) }

// posBits is the float32 of bits b where it is positive, else +0: pos of a finite float32 from
// its f32bits, without a branch.
func posBits(b int32) float32 { return math.Float32frombits(uint32(max(b, 0))) }

// thermalOutTexel is thermalOutRow's texel (i, j) on the field's edge, walking the neighbours
// inside the field.
func (s *sim) thermalOutTexel(t *talusStep, i, j int) (active, steep bool) {
	w, h := s.w, s.h
	hgt := s.hgt
	k := j*w + i
	hk := hgt[k]
	var sum, most float32
	for d := range 8 {
		if !inside(i, j, d, w, h) {
			continue
		}
		drop := hk - hgt[k+t.delta[d]]
		if e := drop - t.lim[d]; e > 0 {
			sum += e
			if e > most {
				most = e
			}
		}
		if drop > t.limTol[d] {
			steep = true
		}
	}
	o := float32(t.rate * float64(most))
	s.out[k] = o
	s.excess[k] = 0 // the share of each unit of excess: o / Σ excess
	if o > 0 {
		s.excess[k] = o / sum
		active = true
	}
	return active, steep
}

// thermalInRow is the second pass over row j: dst = base − what the texel sheds + what its
// neighbours send it, each neighbour's share recomputed from the same s.hgt as the first pass
// (its excess toward this texel over its summed excess); hgtNext gets the new ground's float32
// copy. dst may be base (each texel writes only its own). near says whether this row or one next
// to it sheds anything: when none does, nothing moves here.
func (s *sim) thermalInRow(t *talusStep, j int, near bool, base, dst []float32) {
	w, h := s.w, s.h
	ground, next := rowOf(s.ground, j, w), rowOf(s.hgtNext, j, w)
	b, o := rowOf(base, j, w), rowOf(dst, j, w)
	if !near {
		for i := 0; i < w; i++ {
			v := b[i]
			o[i] = v
			next[i] = float32(float64(ground[i]) + float64(v))
		}
		return
	}
	if j == 0 || j == h-1 || w < 3 {
		for i := range w {
			s.thermalInTexel(t, i, j, base, dst)
		}
		return
	}
	s.thermalInTexel(t, 0, j, base, dst)
	hD, hC, hU := rowOf(s.hgt, j-1, w), rowOf(s.hgt, j, w), rowOf(s.hgt, j+1, w)
	xD, xC, xU := rowOf(s.excess, j-1, w), rowOf(s.excess, j, w), rowOf(s.excess, j+1, w)
	out := rowOf(s.out, j, w)
	l0, l1, l2, l3, l4, l5, l6, l7 := t.lim[0], t.lim[1], t.lim[2], t.lim[3], t.lim[4], t.lim[5], t.lim[6], t.lim[7]
	for i := 1; i < w-1; i++ {
		v := float64(b[i]) - float64(out[i])
		// The neighbours' shares are ≥ +0 (never −0): where all are 0 each neighbour adds
		// exactly +0, which leaves v as it is but for a −0, made +0.
		x0, x1, x2, x3 := xD[i-1], xD[i], xD[i+1], xC[i-1]
		x4, x5, x6, x7 := xC[i+1], xU[i-1], xU[i], xU[i+1]
		if math.Float32bits(x0)|math.Float32bits(x1)|math.Float32bits(x2)|math.Float32bits(x3)|
			math.Float32bits(x4)|math.Float32bits(x5)|math.Float32bits(x6)|math.Float32bits(x7) == 0 {
			if v == 0 {
				v = 0
			}
		} else {
			// n's excess toward k (the step from n to k is the opposite one, of the same
			// length) times n's share per unit of excess, in nbOff's order; a neighbour that
			// sheds nothing (share 0) or is not above talus from here (excess 0) adds +0.
			hk := hC[i]
			v += float64(x0 * posBits(f32bits(hD[i-1]-hk-l0)))
			v += float64(x1 * posBits(f32bits(hD[i]-hk-l1)))
			v += float64(x2 * posBits(f32bits(hD[i+1]-hk-l2)))
			v += float64(x3 * posBits(f32bits(hC[i-1]-hk-l3)))
			v += float64(x4 * posBits(f32bits(hC[i+1]-hk-l4)))
			v += float64(x5 * posBits(f32bits(hU[i-1]-hk-l5)))
			v += float64(x6 * posBits(f32bits(hU[i]-hk-l6)))
			v += float64(x7 * posBits(f32bits(hU[i+1]-hk-l7)))
		}
		dv := float32(v)
		o[i] = dv
		next[i] = float32(float64(ground[i]) + float64(dv)) // always f32(ground + change), as the refresh
	}
	s.thermalInTexel(t, w-1, j, base, dst)
}

// thermalInTexel is thermalInRow's texel (i, j) on the field's edge.
func (s *sim) thermalInTexel(t *talusStep, i, j int, base, dst []float32) {
	w, h := s.w, s.h
	hgt, excess := s.hgt, s.excess
	k := j*w + i
	hk := hgt[k]
	v := float64(base[k]) - float64(s.out[k])
	for d := range 8 {
		if inside(i, j, d, w, h) {
			n := k + t.delta[d]
			v += float64(excess[n] * pos(hgt[n]-hk-t.lim[d]))
		}
	}
	dv := float32(v)
	dst[k] = dv
	s.hgtNext[k] = float32(float64(s.ground[k]) + float64(dv))
}

// rowState carries which rows shed material and which were steep from one settle step to the
// next. A row with no shedding row within two of it in the last step lies in ground that did not
// move (only rows next to a shedding one change), so its first pass would give exactly what it
// gave — nothing shed, the same steepness — and is skipped (redo marks the rows to compute). A
// row none of whose neighbours shed leaves the ground as it was: its float32 copy in hgtNext is
// then that in hgt, and same says so; a settle step (which changes the ground in place) skips
// such a row's second pass when it is quiet again.
type rowState struct {
	active, steep, redo, same []bool
	valid                     bool
}

func newRowState(h int) rowState {
	return rowState{active: make([]bool, h), steep: make([]bool, h), redo: make([]bool, h), same: make([]bool, h)}
}

// skipQuietRows lets settle steps skip quiet rows (rowState); a test turns it off to check that
// the skip changes no byte.
var skipQuietRows = true

// thermalRows runs a thermal step's two passes; between them first (when set) runs beside the
// first pass on each row. rs carries the rows' state; when valid, from the step before with
// nothing between (the settle's): quiet rows are skipped then. It returns whether any slope
// exceeded talus + tol before the step.
func (s *sim) thermalRows(ctx context.Context, t *talusStep, first func(j int), base, dst []float32, rs *rowState) (bool, error) {
	if s.hgtStale {
		if err := s.rows(ctx, func(j int) {
			for k := j * s.w; k < (j+1)*s.w; k++ {
				s.hgt[k] = float32(s.height(k))
			}
		}); err != nil {
			return false, err
		}
	}
	active, steep, same := rs.active, rs.steep, rs.same
	var redo []bool // nil: every row
	if rs.valid && skipQuietRows {
		redo = rs.redo
		clear(redo)
		for j, a := range active {
			if a {
				for r := max(j-2, 0); r <= min(j+2, s.h-1); r++ {
					redo[r] = true
				}
			}
		}
	}
	// In place (the settle's), a quiet row whose float32 copies already agree has nothing to do.
	skipSame := redo != nil && &base[0] == &dst[0]
	if err := s.rows(ctx, func(j int) {
		if first != nil {
			first(j)
		}
		if redo == nil || redo[j] {
			active[j], steep[j] = s.thermalOutRow(t, j)
		}
	}); err != nil {
		return false, err
	}
	if err := s.rows(ctx, func(j int) {
		near := active[j] || (j > 0 && active[j-1]) || (j < s.h-1 && active[j+1])
		if !near && skipSame && same[j] {
			return
		}
		s.thermalInRow(t, j, near, base, dst)
		same[j] = !near
	}); err != nil {
		return false, err
	}
	rs.valid = true
	s.hgt, s.hgtNext = s.hgtNext, s.hgt
	s.hgtStale = false
	for _, st := range steep {
		if st {
			return true, nil
		}
	}
	return false, nil
}

// settle runs thermal steps (in place on the ground's change) until no slope to a neighbour
// exceeds talus + tol degrees or limit steps have run; it returns the steps run and whether the
// ground settled.
func (s *sim) settle(ctx context.Context, talus, tol float64, limit int, step func(k int)) (int, bool, error) {
	rs := newRowState(s.h)
	t := s.talusStep(talus, tol, settleRate)
	for k := range limit {
		if err := ctx.Err(); err != nil {
			return k, false, fmt.Errorf("erode: %w", err)
		}
		steep, err := s.thermalRows(ctx, &t, nil, s.db, s.db, &rs)
		if err != nil {
			return k, false, err
		}
		if !steep {
			return k, true, nil
		}
		step(k + 1)
	}
	steep, err := s.steep(ctx, talus, tol)
	return limit, !steep && err == nil, err
}

// steep reports whether any slope to a neighbour exceeds talus + tol degrees.
func (s *sim) steep(ctx context.Context, talus, tol float64) (bool, error) {
	w, h := s.w, s.h
	t := math.Tan((talus + tol) * math.Pi / 180)
	lim := [3]float64{t * s.px, t * s.pz, t * math.Hypot(s.px, s.pz)}
	steepRow := make([]bool, h)
	err := s.rows(ctx, func(j int) {
		for i := range w {
			hk := s.height(j*w + i)
			for d, o := range nbOff {
				ni, nj := i+o[0], j+o[1]
				if ni >= 0 && ni < w && nj >= 0 && nj < h && hk-s.height(nj*w+ni) > lim[nbKind[d]] {
					steepRow[j] = true
					return
				}
			}
		}
	})
	for _, st := range steepRow {
		if st {
			return true, err
		}
	}
	return false, err
}

// Thermal runs thermal erosion alone on g (texels texel metres): settle steps until no slope to
// any of the 8 neighbours (centre to centre) exceeds talus + tol degrees, at most limit steps. It
// returns the new height and whether it settled; g is not changed. The field's edge is a wall.
func Thermal(ctx context.Context, g *field.Grid, texel [2]float64, talus, tol float64, limit, workers int) (*field.Grid, bool, error) {
	if !(talus > 0 && talus < 90) {
		return nil, false, fmt.Errorf("erode: talus = %v: want an angle over 0 and under 90 degrees", talus)
	}
	if g == nil {
		return nil, false, errors.New("erode: no height grid")
	}
	p := Params{Talus: talus, TimeStep: 0.25, SettleIterations: limit, SettleTolerance: tol}
	r, err := Run(ctx, g, texel, Options{Params: p, Workers: workers, Progress: progress.Nop})
	if err != nil {
		return nil, false, err
	}
	return r.Height, r.Settled, nil
}

// inside reports whether neighbour d of texel (i, j) is on the w×h grid.
func inside(i, j, d, w, h int) bool {
	ni, nj := i+nbOff[d][0], j+nbOff[d][1]
	return ni >= 0 && ni < w && nj >= 0 && nj < h
}

// pos is x where it is positive, else 0 (without the NaN and signed-zero cases of max).
func pos(x float32) float32 {
	if x > 0 {
		return x
	}
	return 0
}
