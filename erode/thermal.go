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
// none asked), and the rate (the fraction of a texel's largest excess it sheds). Thermal steps
// compare float32 heights in L (s.hgt): at 10⁴ L a drop is resolved to 10⁻³ L, far below any
// talus excess that matters, and the material moved is added to the float32 change exactly as
// the first pass decided it.
type talusStep struct {
	delta       [8]int
	lim, limTol [8]float32 // limTol: +Inf when no tolerance is asked
	rate        float64
}

func (s *sim) talusStep(talus, tol, rate float64) *talusStep {
	t := &talusStep{rate: rate}
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
// exceeds talus + tol.
func (s *sim) thermalOutRow(t *talusStep, j int) (active, steep bool) {
	w, h := s.w, s.h
	hgt, out, excess := s.hgt, s.out, s.excess
	edgeRow := j == 0 || j == h-1
	for i := range w {
		k := j*w + i
		hk := hgt[k]
		var sum, most float32
		if !edgeRow && i > 0 && i < w-1 {
			for d := range 8 {
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
		} else {
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
		}
		o := float32(t.rate * float64(most))
		out[k] = o
		excess[k] = 0 // the share of each unit of excess: o / Σ excess
		if o > 0 {
			excess[k] = o / sum
			active = true
		}
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
	ground, hgt, next, out, excess := s.ground, s.hgt, s.hgtNext, s.out, s.excess
	if !near {
		for k := j * w; k < (j+1)*w; k++ {
			v := base[k]
			dst[k] = v
			next[k] = float32(float64(ground[k]) + float64(v))
		}
		return
	}
	edgeRow := j == 0 || j == h-1
	for i := range w {
		k := j*w + i
		hk := hgt[k]
		v := float64(base[k]) - float64(out[k])
		// n's excess toward k (the step from n to k is the opposite one, of the same length)
		// times n's share per unit of excess; a neighbour that sheds nothing (share 0) or is
		// not above talus from here (excess 0) adds exactly 0.
		if !edgeRow && i > 0 && i < w-1 {
			for d := range 8 {
				n := k + t.delta[d]
				v += float64(excess[n] * pos(hgt[n]-hk-t.lim[d]))
			}
		} else {
			for d := range 8 {
				if inside(i, j, d, w, h) {
					n := k + t.delta[d]
					v += float64(excess[n] * pos(hgt[n]-hk-t.lim[d]))
				}
			}
		}
		dv := float32(v)
		dst[k] = dv
		next[k] = float32(float64(ground[k]) + float64(dv)) // always f32(ground + change), as the refresh
	}
}

// rowState carries which rows shed material and which were steep from one settle step to the
// next. A row with no shedding row within two of it in the last step lies in ground that did not
// move (only rows next to a shedding one change), so its first pass would give exactly what it
// gave — nothing shed, the same steepness — and is skipped.
type rowState struct {
	active, steep []bool
	valid         bool
}

// skipQuietRows lets settle steps skip quiet rows (rowState); a test turns it off to check that
// the skip changes no byte.
var skipQuietRows = true

// thermalRows runs a thermal step's two passes; between them first (when set) runs beside the
// first pass on each row. rs, when set, carries the rows' state between consecutive steps (the
// settle's). It returns whether any slope exceeded talus + tol before the step.
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
	if rs == nil {
		rs = &rowState{active: make([]bool, s.h), steep: make([]bool, s.h)}
	}
	active, steep := rs.active, rs.steep
	var redo []bool // nil: every row
	if rs.valid && skipQuietRows {
		redo = make([]bool, s.h)
		for j, a := range active {
			if a {
				for r := max(j-2, 0); r <= min(j+2, s.h-1); r++ {
					redo[r] = true
				}
			}
		}
	}
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
		s.thermalInRow(t, j, near, base, dst)
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

// thermalTol runs one thermal step alone (the settle's) and reports whether any slope to a
// neighbour, before the step, exceeded talus + tol degrees.
func (s *sim) thermalTol(ctx context.Context, talus, tol, rate float64, rs *rowState) (bool, error) {
	steep, err := s.thermalRows(ctx, s.talusStep(talus, tol, rate), nil, s.db, s.dbNext, rs)
	if err != nil {
		return false, err
	}
	s.db, s.dbNext = s.dbNext, s.db
	return steep, nil
}

// settle runs thermal steps until no slope to a neighbour exceeds talus + tol degrees or limit
// steps have run; it returns the steps run and whether the ground settled.
func (s *sim) settle(ctx context.Context, talus, tol float64, limit int, step func(k int)) (int, bool, error) {
	rs := &rowState{active: make([]bool, s.h), steep: make([]bool, s.h)}
	for k := range limit {
		if err := ctx.Err(); err != nil {
			return k, false, fmt.Errorf("erode: %w", err)
		}
		steep, err := s.thermalTol(ctx, talus, tol, settleRate, rs)
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
