package viewport

import "math"

// Hit is the ground under an image point.
type Hit struct {
	X, Z   float64 // world metres
	Height float64 // metres, the bilinear height at (X, Z)
}

// heightSampler reads the scene's height payload the way the bake kernels do (SPEC "Field
// geometry": cell-centred, bilinear, clamped to the grid).
type heightSampler struct {
	src      HeightSource // locked while a pick reads it
	w, h     int
	min      [2]float64
	invTexel [2]float64
}

func newHeightSampler(s *Scene) heightSampler {
	t := s.texel()
	src := s.ground()
	w, h := src.GridSize()
	return heightSampler{src: src, w: w, h: h, min: s.Placement.Min(), invTexel: [2]float64{1 / t[0], 1 / t[1]}}
}

// at is the height of texel (i, j), clamped to the grid.
func (s heightSampler) at(i, j int) float64 {
	return float64(s.src.HeightRow(clampInt(j, 0, s.h-1))[clampInt(i, 0, s.w-1)])
}

// height returns the bilinear height at world (x, z) and whether there is ground there (the
// nearest texel's coverage is at least one half).
func (s heightSampler) height(x, z float64) (float64, bool) {
	u := (x-s.min[0])*s.invTexel[0] - 0.5
	v := (z-s.min[1])*s.invTexel[1] - 0.5
	fu, fv := math.Floor(u), math.Floor(v)
	i, j := int(fu), int(fv)
	tu, tv := u-fu, v-fv
	h00, h10, h01, h11 := s.at(i, j), s.at(i+1, j), s.at(i, j+1), s.at(i+1, j+1)
	a := h00 + (h10-h00)*tu
	b := h01 + (h11-h01)*tu
	cov := s.src.Texel(clampInt(int(math.Round(u)), 0, s.w-1), clampInt(int(math.Round(v)), 0, s.h-1))[3]
	return a + (b-a)*tv, cov >= 0.5
}

// pick marches the ray through image point (px, py) across the field in steps of half a texel
// and refines the first crossing by bisection, so the answer is the bilinear surface's own
// intersection, independent of the level of detail the GPU happened to draw.
//
// Holes are seen through (the ray goes on to what lies beyond) unless throughHoles is false: then
// the cut ground counts as ground, for a brush that paints the surface whether or not it is cut.
func pick(f *frame, s heightSampler, size [2]float64, lo, hi float64, px, py float64, throughHoles bool) (Hit, bool) {
	o, d := f.ray(px, py)
	bmin := vec3{s.min[0], lo - 1e-3, s.min[1]}
	bmax := vec3{s.min[0] + size[0], hi + 1e-3, s.min[1] + size[1]}
	t0, t1 := 0.0, math.Inf(1)
	for k := 0; k < 3; k++ {
		if math.Abs(d[k]) < 1e-12 {
			if o[k] < bmin[k] || o[k] > bmax[k] {
				return Hit{}, false
			}
			continue
		}
		a := (bmin[k] - o[k]) / d[k]
		b := (bmax[k] - o[k]) / d[k]
		if a > b {
			a, b = b, a
		}
		t0, t1 = math.Max(t0, a), math.Min(t1, b)
	}
	if !(t0 <= t1) || math.IsInf(t1, 1) {
		return Hit{}, false
	}
	above := func(t float64) (bool, float64, float64, float64) {
		x, y, z := o[0]+d[0]*t, o[1]+d[1]*t, o[2]+d[2]*t
		h, ground := s.height(x, z)
		return (throughHoles && !ground) || y > h, x, z, h
	}
	horiz := math.Hypot(d[0], d[2])
	texel := 0.5 / math.Max(s.invTexel[0], s.invTexel[1])
	dt := t1 - t0
	if horiz > 1e-12 {
		dt = math.Min(dt, texel/horiz)
	}
	steps := int(math.Ceil((t1 - t0) / math.Max(dt, 1e-12)))
	if steps > 1<<22 {
		steps = 1 << 22
		dt = (t1 - t0) / float64(steps)
	}
	prev := t0
	if up, _, _, _ := above(prev); !up {
		_, x, z, h := above(prev)
		return Hit{X: x, Z: z, Height: h}, true
	}
	for k := 1; k <= steps; k++ {
		t := math.Min(t0+float64(k)*dt, t1)
		if up, _, _, _ := above(t); up {
			prev = t
			continue
		}
		a, b := prev, t
		for it := 0; it < 48; it++ {
			m := (a + b) / 2
			if up, _, _, _ := above(m); up {
				a = m
			} else {
				b = m
			}
		}
		_, x, z, h := above(b)
		return Hit{X: x, Z: z, Height: h}, true
	}
	return Hit{}, false
}
