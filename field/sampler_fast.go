package field

import "math"

// The fast paths of Sampler. Bilinear, Slope and Curvature (sampler.go) stay the definition; what
// is here computes the very same float32 numbers with less work per texel, for an evaluator that
// walks a row of weights texels (stack.Taps):
//
//   - Bilinear's position arithmetic is separable: the x half (column pair and fraction) depends
//     on px alone and the z half on pz alone. AxisX and AxisZ are those halves and At the blend,
//     the same operations in the same order, so At(AxisX(px), AxisZ(pz)) == Bilinear(px, pz) bit
//     for bit for every input. A row computes each column's x halves once per tile and the z
//     halves once per row.
//
//   - When both fractions are exactly 0 — a tap on a texel centre, as every slope and curvature
//     tap is when the weights grid is the height grid and gradientStep is the texel size — the
//     blend is lerp(lerp(h00, h10, 0), lerp(h01, h11, 0), 0), and lerp(a, b, 0) = a + (b-a)·0 is
//     exactly a when b-a is finite and a is not -0 (a + ±0 = a for a ≠ 0, +0 + ±0 = +0). Both hold
//     for every pair of a block whose values are Tame (finite, |v| ≤ MaxFloat32/2, no -0), so
//     there Texel, one read, equals At. The fraction is not assumed to be 0: float32 rounding of
//     the position can leave it a hair off, so callers test Axis.Exact per tap and use At when not.
//
//   - SlopeK and CurvatureK take the step's constants 0.5/g and 1/(g·g) computed once, not per
//     texel; SlopeFromTaps and CurvatureFromTaps are written through them.

// Axis is one axis's half of a bilinear tap at one world coordinate, as Bilinear computes it:
// the two neighbours clamped to the block (block columns along x; block rows times the row stride
// along z) and the fraction t between them. Build it with AxisX or AxisZ of the sampler that
// reads it (or of one with the SameAxes), never by hand.
type Axis struct {
	a0, a1 int
	t      float32
}

// Exact reports a fraction of exactly 0: the tap lies on a texel centre along this axis.
func (a Axis) Exact() bool { return a.t == 0 }

// axis is Bilinear's placement along one axis: u = (p - mn) * inv - 0.5, i = floor(u),
// t = u - floor(u), neighbours i and i+1 made block-relative (- first) and clamped to [0, last],
// then multiplied by mul (1 for columns, the row stride for rows).
func axis(p, mn, inv float32, first, last, mul int) Axis {
	u := float32((p-mn)*inv) - 0.5
	iu := int(u)
	if float32(iu) > u {
		iu--
	}
	t := u - float32(iu)
	iu -= first
	return Axis{min(max(iu, 0), last) * mul, min(max(iu+1, 0), last) * mul, t}
}

// AxisX is the x half of Bilinear(px, ·).
func (s *Sampler) AxisX(px float32) Axis { return axis(px, s.minX, s.invX, s.i0, s.maxI, 1) }

// AxisZ is the z half of Bilinear(·, pz).
func (s *Sampler) AxisZ(pz float32) Axis { return axis(pz, s.minZ, s.invZ, s.j0, s.maxJ, s.stride) }

// At is Bilinear(px, pz) given x = AxisX(px) and z = AxisZ(pz): the blend of the four neighbours.
func (s *Sampler) At(x, z Axis) float32 {
	if len(s.data) == 0 {
		return 0
	}
	d := s.data
	h00, h10 := d[z.a0+x.a0], d[z.a0+x.a1]
	h01, h11 := d[z.a1+x.a0], d[z.a1+x.a1]
	return lerp(lerp(h00, h10, x.t), lerp(h01, h11, x.t), z.t)
}

// Texel is the texel x and z name, one read: At(x, z) bit for bit when x.Exact(), z.Exact() and
// s.Tame() (see the top of this file); anything else is At's job.
func (s *Sampler) Texel(x, z Axis) float32 {
	if len(s.data) == 0 {
		return 0
	}
	return s.data[z.a0+x.a0]
}

// SameAxes reports whether o's AxisX and AxisZ equal s's for every position (same geometry and
// the same block of a grid with the same row stride), so one row of axes serves both samplers.
func (s *Sampler) SameAxes(o *Sampler) bool {
	return s.minX == o.minX && s.minZ == o.minZ && s.invX == o.invX && s.invZ == o.invZ &&
		s.i0 == o.i0 && s.j0 == o.j0 && s.maxI == o.maxI && s.maxJ == o.maxJ && s.stride == o.stride &&
		len(s.data) > 0 && len(o.data) > 0
}

// tameMax is the bit pattern of MaxFloat32/2: two values no larger apart differ by a finite
// float32.
const tameMax = 0x7effffff

// Tame reports whether every value of the block is finite, at most MaxFloat32/2 in magnitude and
// not -0: then every blend with a zero fraction is its first neighbour (Texel). Real heights and
// channels always are; one value that is not sends a tile down At. It reads the whole block once,
// about 1 ns a texel, a few percent of the taps it lets a tile skip.
func (s *Sampler) Tame() bool {
	if len(s.data) == 0 {
		return false
	}
	w := s.maxI + 1
	for j := 0; j <= s.maxJ; j++ {
		row := s.data[j*s.stride : j*s.stride+w]
		for _, v := range row {
			b := math.Float32bits(v)
			if b&0x7fffffff > tameMax || b == 0x80000000 {
				return false
			}
		}
	}
	return true
}

// SlopeK is SlopeFromTaps with k = 0.5/g already computed (float32): the same numbers,
// SlopeOfGrad(GradK(…)).
func SlopeK(hxp, hxm, hzp, hzm, k float32) float32 {
	return SlopeOfGrad(GradK(hxp, hxm, hzp, hzm, k))
}

// GradK is the gradient's magnitude sqrt(dx² + dz²) from the four taps, k = 0.5/g: the tangent of
// the slope, before the arctangent. It is ≥ 0, +Inf or NaN.
func GradK(hxp, hxm, hzp, hzm, k float32) float32 {
	dx := float32((hxp - hxm) * k)
	dz := float32((hzp - hzm) * k)
	return float32(math.Sqrt(float64(float32(dx*dx) + float32(dz*dz))))
}

// SlopeOfGrad is the slope in degrees of a gradient magnitude m (GradK): atan(m) · RadToDeg. It
// is monotone in m only up to rounding, which is why code that compares a slope with a bound
// without computing it keeps a margin (stack's slope settling).
func SlopeOfGrad(m float32) float32 {
	return float32(float32(math.Atan(float64(m))) * RadToDeg)
}

// AspectFlat is the aspect of flat ground (a gradient of exactly zero), where no compass direction
// is downhill: outside [0, 360], so no aspect band mistakes it for north (docs/design.md "Aspect").
const AspectFlat = float32(-1)

// AspectK is AspectFromTaps with k = 0.5/g already computed (float32): the gradient (dx, dz) as
// GradK computes it, then the compass angle of the downhill direction (−dx, −dz) measured from +Z
// towards +X, atan2(−dx, −dz) · RadToDeg, plus 360 when negative. AspectFlat when dx and dz are
// both 0; NaN when either is NaN (a non-finite height: no band passes, as for the other inputs).
func AspectK(hxp, hxm, hzp, hzm, k float32) float32 {
	dx := float32((hxp - hxm) * k)
	dz := float32((hzp - hzm) * k)
	if dx == 0 && dz == 0 {
		return AspectFlat
	}
	a := float32(float32(math.Atan2(float64(-dx), float64(-dz))) * RadToDeg)
	if a < 0 {
		a += 360
	}
	return a
}

// CurvatureK is CurvatureFromTaps with k = 1/(g·g) already computed (float32: 1 / float32(g*g)).
func CurvatureK(hxp, hxm, hzp, hzm, hc, k float32) float32 {
	return float32((hxp + hxm + hzp + hzm - float32(4*hc)) * k)
}
