package field

// Sampler reads one grid (height or a channel) at world positions, the way the weights kernel
// reads its tile buffer. It holds a view of a block of the grid — the whole grid, or a tile's
// apron-inclusive buffer — plus the float32 geometry (fieldMin, invHTexel) from Geometry, so a tap
// is placed from the field minimum and never from the block's origin.
//
// The methods are the Go twins of the WGSL functions bilinear, slopeDeg and curvature in
// shaders/field.wgsl: float32, in the order docs/design.md writes them. Products are wrapped in
// explicit float32 conversions, which forbids the compiler to fuse them into multiply-adds on
// architectures that have them, so the reference rounds the same everywhere.
//
// A Sampler is a small value with no interface and no allocation: build one per tile and call it
// from one goroutine or many (it is read-only). The zero Sampler reads 0 everywhere.
type Sampler struct {
	data       []float32 // the block, starting at grid texel (i0, j0), rows stride apart
	i0, j0     int       // grid texel of the block's first sample
	maxI, maxJ int       // block width-1, height-1: the clamp bounds in block coordinates
	stride     int
	minX, minZ float32 // Geometry.FieldMin
	invX, invZ float32 // Geometry.InvHTexel
}

// lerp is a + (b - a) * t; docs/design.md forbids the WGSL mix builtin, so both twins write this.
func lerp(a, b, t float32) float32 { return a + float32((b-a)*t) }

// Bilinear is the value at world (px, pz): u = (px - minX) * invHTexelX - 0.5, i0 = floor(u),
// t = u - floor(u), neighbours i0 and i0+1 clamped to the edge; the same along z. WGSL: bilinear.
func (s *Sampler) Bilinear(px, pz float32) float32 {
	if len(s.data) == 0 {
		return 0
	}
	u := float32((px-s.minX)*s.invX) - 0.5
	v := float32((pz-s.minZ)*s.invZ) - 0.5
	// floor without a float64 round trip: truncate, then step down for negative non-integers.
	// float32(iu) is exact below 2^24, where the result equals floor(u); NaN or absurd positions
	// give garbage indices that the clamp below keeps in range.
	iu, iv := int(u), int(v)
	if float32(iu) > u {
		iu--
	}
	if float32(iv) > v {
		iv--
	}
	tx := u - float32(iu)
	tz := v - float32(iv)
	iu -= s.i0
	iv -= s.j0
	a0 := min(max(iu, 0), s.maxI)
	a1 := min(max(iu+1, 0), s.maxI)
	r0 := min(max(iv, 0), s.maxJ) * s.stride
	r1 := min(max(iv+1, 0), s.maxJ) * s.stride
	h00, h10 := s.data[r0+a0], s.data[r0+a1]
	h01, h11 := s.data[r1+a0], s.data[r1+a1]
	return lerp(lerp(h00, h10, tx), lerp(h01, h11, tx), tz)
}

// RadToDeg is the float32 constant both twins multiply atan's radians by.
const RadToDeg = float32(57.29578)

// Slope is the slope in degrees (0 flat, 90 vertical) at world (px, pz): central differences of
// Bilinear over g = gradientStep metres, dx = (H(px+g) - H(px-g)) * (0.5 / g), likewise dz, then
// atan(sqrt(dx² + dz²)). WGSL: slopeDeg.
func (s *Sampler) Slope(px, pz, g float32) float32 {
	hxp := s.Bilinear(px+g, pz)
	hxm := s.Bilinear(px-g, pz)
	hzp := s.Bilinear(px, pz+g)
	hzm := s.Bilinear(px, pz-g)
	return SlopeFromTaps(hxp, hxm, hzp, hzm, g)
}

// Curvature is the Laplacian of height at world (px, pz) over g metres, in 1/metres, positive in
// a gully and negative on a ridge: (H(x+g) + H(x-g) + H(z+g) + H(z-g) - 4·H) * (1 / (g·g)).
// WGSL: curvature.
func (s *Sampler) Curvature(px, pz, g float32) float32 {
	hxp := s.Bilinear(px+g, pz)
	hxm := s.Bilinear(px-g, pz)
	hzp := s.Bilinear(px, pz+g)
	hzm := s.Bilinear(px, pz-g)
	hc := s.Bilinear(px, pz)
	return CurvatureFromTaps(hxp, hxm, hzp, hzm, hc, g)
}

// Aspect is the compass direction the downhill faces at world (px, pz), in degrees: 0 = +Z
// (north), 90 = +X (east), clockwise seen from above, in [0, 360]; AspectFlat where the gradient is
// exactly zero. The same four taps and step as Slope. WGSL: aspectDeg.
func (s *Sampler) Aspect(px, pz, g float32) float32 {
	hxp := s.Bilinear(px+g, pz)
	hxm := s.Bilinear(px-g, pz)
	hzp := s.Bilinear(px, pz+g)
	hzm := s.Bilinear(px, pz-g)
	return AspectFromTaps(hxp, hxm, hzp, hzm, g)
}

// SlopeCurvature returns Slope and Curvature from one set of five taps, for a stack that reads
// both; the results are bit-identical to the two separate calls.
func (s *Sampler) SlopeCurvature(px, pz, g float32) (slope, curv float32) {
	hxp := s.Bilinear(px+g, pz)
	hxm := s.Bilinear(px-g, pz)
	hzp := s.Bilinear(px, pz+g)
	hzm := s.Bilinear(px, pz-g)
	hc := s.Bilinear(px, pz)
	return SlopeFromTaps(hxp, hxm, hzp, hzm, g), CurvatureFromTaps(hxp, hxm, hzp, hzm, hc, g)
}

// SlopeFromTaps is the slope in degrees from the four taps at ±g along x (hxp, hxm) and z (hzp,
// hzm), for callers that already hold them (the evaluator sharing taps between rules).
func SlopeFromTaps(hxp, hxm, hzp, hzm, g float32) float32 {
	return SlopeK(hxp, hxm, hzp, hzm, 0.5/g)
}

// AspectFromTaps is the aspect in degrees from the four taps at ±g (see Aspect).
func AspectFromTaps(hxp, hxm, hzp, hzm, g float32) float32 {
	return AspectK(hxp, hxm, hzp, hzm, 0.5/g)
}

// CurvatureFromTaps is the Laplacian from the four ±g taps and the centre tap hc, summed left to
// right as the WGSL does.
func CurvatureFromTaps(hxp, hxm, hzp, hzm, hc, g float32) float32 {
	return CurvatureK(hxp, hxm, hzp, hzm, hc, 1/float32(g*g))
}
