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

// settleRate is the fraction of its largest excess a texel sheds per settle iteration.
const settleRate = 0.4

// thermal runs one thermal step at rate (the fraction of a texel's largest excess over the talus
// slope it sheds, shared among its lower neighbours in proportion to their excess) and reports
// whether any slope to a neighbour, before the step, exceeded talus + tol degrees (tol < 0: not
// asked). Two passes, both Jacobi: the first computes every texel's outgoing material and
// summed excess from the ground; the second gives each texel what it loses and what its
// neighbours send it, recomputing their excess toward it from the same ground.
func (s *sim) thermal(ctx context.Context, talus, rate float64) (steep bool, err error) {
	return s.thermalTol(ctx, talus, -1, rate)
}

func (s *sim) thermalTol(ctx context.Context, talus, tol, rate float64) (bool, error) {
	w, h := s.w, s.h
	t := math.Tan(talus * math.Pi / 180)
	dist := [3]float64{s.px, s.pz, math.Hypot(s.px, s.pz)}
	var lim [3]float64 // the drop to a neighbour at talus: excess is the drop beyond it
	var limTol [3]float64
	for c := range 3 {
		lim[c] = t * dist[c]
		if tol >= 0 {
			limTol[c] = math.Tan((talus+tol)*math.Pi/180) * dist[c]
		}
	}
	steepRow := make([]bool, h)
	err := s.rows(ctx, func(j int) {
		for i := range w {
			k := j*w + i
			hk := s.height(k)
			var sum, most float64
			for d, o := range nbOff {
				ni, nj := i+o[0], j+o[1]
				if ni < 0 || ni >= w || nj < 0 || nj >= h {
					continue
				}
				drop := hk - s.height(nj*w+ni)
				if e := drop - lim[nbKind[d]]; e > 0 {
					sum += e
					most = max(most, e)
				}
				if tol >= 0 && drop > limTol[nbKind[d]] {
					steepRow[j] = true
				}
			}
			s.out[k] = float32(rate * most)
			s.excess[k] = float32(sum)
		}
	})
	if err != nil {
		return false, err
	}
	err = s.rows(ctx, func(j int) {
		for i := range w {
			k := j*w + i
			hk := s.height(k)
			db := float64(s.db[k]) - float64(s.out[k])
			for d, o := range nbOff {
				ni, nj := i+o[0], j+o[1]
				if ni < 0 || ni >= w || nj < 0 || nj >= h {
					continue
				}
				n := nj*w + ni
				if s.out[n] == 0 {
					continue
				}
				// n's excess toward k (the step from n to k is the opposite one, of the same length).
				if e := s.height(n) - hk - lim[nbKind[d]]; e > 0 {
					db += float64(s.out[n]) * e / float64(s.excess[n])
				}
			}
			s.dbNext[k] = float32(db)
		}
	})
	if err != nil {
		return false, err
	}
	s.db, s.dbNext = s.dbNext, s.db
	for _, st := range steepRow {
		if st {
			return true, nil
		}
	}
	return false, nil
}

// settle runs thermal steps until no slope to a neighbour exceeds talus + tol degrees or limit
// steps have run; it returns the steps run and whether the ground settled.
func (s *sim) settle(ctx context.Context, talus, tol float64, limit int, step func(k int)) (int, bool, error) {
	for k := range limit {
		if err := ctx.Err(); err != nil {
			return k, false, fmt.Errorf("erode: %w", err)
		}
		steep, err := s.thermalTol(ctx, talus, tol, settleRate)
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
