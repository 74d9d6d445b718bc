package scatter

import (
	"strata/field"
	"strata/noise"
)

// This file is the per-site math, the Go twin of terrain_scatter_place.wgsl's site(). Each
// product that feeds a sum is rounded to float32 on its own (explicit conversion); the WGSL writes
// the same product through an integer identity the compiler cannot see through (its bits XORed
// with a run-time zero), so the GPU can neither fuse it into the sum nor rewrite a lerp. That is
// how positions, the acceptance test and the matrices come out bit-identical.

// MatrixFloats is the size of one instance in the pool: a column-major mat4x4<f32>.
const MatrixFloats = 16

// DensityGrid reads a density grid (weights grid, instances/m²) at world positions: cell-centred
// texels of wTexel metres from the field minimum, bilinear, clamped to the edge, float32 in the
// steps of field.Sampler.Bilinear with the weights grid's inverse texel size.
type DensityGrid struct {
	Data       []float32
	W, H       int
	minX, minZ float32
	invX, invZ float32
	i0, j0     int // weights texel of Data's first value: 0 for a whole grid, else a window's corner
}

// NewDensityGrid wraps g (the weights grid of geo) for bilinear reads.
func NewDensityGrid(geo *field.Geometry, g *field.Grid) DensityGrid {
	inv := InvWTexel(geo)
	return DensityGrid{Data: g.Data, W: g.W, H: g.H, minX: geo.FieldMin[0], minZ: geo.FieldMin[1], invX: inv[0], invZ: inv[1]}
}

// InvWTexel is weights texels per metre, W/size rounded to float32 once (as field computes
// InvHTexel), so both twins multiply by the same number instead of dividing.
func InvWTexel(geo *field.Geometry) [2]float32 {
	return [2]float32{
		float32(float64(geo.WeightsW) / geo.Placement.Size[0]),
		float32(float64(geo.WeightsH) / geo.Placement.Size[1]),
	}
}

func lerp(a, b, t float32) float32 { return a + float32((b-a)*t) }

// floorInt is floor for the in-range positions of a grid (|v| < 2^31); NaN yields garbage the
// clamp keeps in range.
func floorInt(v float32) int {
	i := int(v)
	if float32(i) > v {
		i--
	}
	return i
}

// Bilinear is the density at world (px, pz).
func (d *DensityGrid) Bilinear(px, pz float32) float32 {
	if d.W < 1 || d.H < 1 || len(d.Data) < d.W*d.H {
		return 0
	}
	u := float32((px-d.minX)*d.invX) - 0.5
	v := float32((pz-d.minZ)*d.invZ) - 0.5
	iu, iv := floorInt(u), floorInt(v)
	tx := u - float32(iu)
	tz := v - float32(iv)
	iu -= d.i0
	iv -= d.j0
	a0 := min(max(iu, 0), d.W-1)
	a1 := min(max(iu+1, 0), d.W-1)
	r0 := min(max(iv, 0), d.H-1) * d.W
	r1 := min(max(iv+1, 0), d.H-1) * d.W
	return lerp(lerp(d.Data[r0+a0], d.Data[r0+a1], tx), lerp(d.Data[r1+a0], d.Data[r1+a1], tx), tz)
}

// Sine and cosine polynomial coefficients (Taylor, in θ² Horner form) for θ in [0, π/2]: the
// truncation error is below 6e-8. GPUs' sin/cos are not correctly rounded and differ between
// drivers; this polynomial is plain multiplies and adds, so both twins agree bit for bit.
var (
	sinC = [...]float32{1, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800}
	cosC = [...]float32{1, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600}
)

const halfPi = float32(1.5707963267948966)

// SinCos returns sin and cos of yaw = U01(k<<8)·2π for a 24-bit k (k = PCG(h+3) >> 8): quadrant
// k >> 22, then θ = (k & 0x3FFFFF)·2^-22 · π/2 in [0, π/2) through the polynomials. This is the
// design's yaw exactly decomposed (4·U01 = quadrant + fraction), without a float range reduction.
func SinCos(k uint32) (sin, cos float32) {
	q := (k >> 22) & 3
	x := float32(k&0x3FFFFF) * (1.0 / 4194304.0)
	th := float32(x * halfPi)
	t2 := float32(th * th)
	s := sinC[len(sinC)-1]
	for i := len(sinC) - 2; i >= 0; i-- {
		s = sinC[i] + float32(t2*s)
	}
	s = float32(th * s)
	c := cosC[len(cosC)-1]
	for i := len(cosC) - 2; i >= 0; i-- {
		c = cosC[i] + float32(t2*c)
	}
	switch q {
	case 1:
		return c, -s
	case 2:
		return -s, -c
	case 3:
		return -c, s
	}
	return s, c
}

// siteEnv is what every site of one placement reads.
type siteEnv struct {
	seed    uint32
	s, s2   float32 // spacing and spacing² (float32 of s·s)
	fmin    [2]float32
	end     [2]float32 // FieldEnd
	scaleLo float32
	scaleD  float32 // hi - lo
	density DensityGrid
	height  field.Sampler
}

func newSiteEnv(p Params, geo *field.Geometry, density, height *field.Grid) siteEnv {
	return siteEnvOf(p, geo, NewDensityGrid(geo, density), geo.Sampler(height))
}

// siteEnvOf is the environment of placement p over geo reading density and height through the
// given samplers (whole grids, or windows of them).
func siteEnvOf(p Params, geo *field.Geometry, density DensityGrid, height field.Sampler) siteEnv {
	return siteEnv{
		seed:    p.Seed,
		s:       p.Spacing,
		s2:      float32(p.Spacing * p.Spacing),
		fmin:    geo.FieldMin,
		end:     [2]float32{FieldEnd(geo, 0), FieldEnd(geo, 1)},
		scaleLo: p.Scale[0],
		scaleD:  p.Scale[1] - p.Scale[0],
		density: density,
		height:  height,
	}
}

// site is the instance site (i, j) carries, if any: h = Hash2(i, j, seed); jittered position
// p = min + (i + U01(PCG(h+1)), j + U01(PCG(h+2)))·s; rejected outside the field; accepted when
// U01(h) < density(p)·s²; yaw and scale from PCG(h+3), PCG(h+4); y from the height at p.
func (e *siteEnv) site(i, j int32, m *[MatrixFloats]float32) bool {
	h := noise.Hash2(i, j, e.seed)
	ux := noise.U01(noise.PCG(h + 1))
	uz := noise.U01(noise.PCG(h + 2))
	px := e.fmin[0] + float32((float32(i)+ux)*e.s)
	pz := e.fmin[1] + float32((float32(j)+uz)*e.s)
	if !(px < e.end[0] && pz < e.end[1]) {
		return false
	}
	d := e.density.Bilinear(px, pz)
	if !(noise.U01(h) < d*e.s2) {
		return false
	}
	sn, cs := SinCos(noise.PCG(h+3) >> 8)
	sc := e.scaleLo + float32(noise.U01(noise.PCG(h+4))*e.scaleD)
	y := e.height.Bilinear(px, pz)
	*m = [MatrixFloats]float32{
		cs * sc, 0, -(sn * sc), 0,
		0, sc, 0, 0,
		sn * sc, 0, cs * sc, 0,
		px, y, pz, 1,
	}
	return true
}

// siteProbability is the probability that site (i, j) carries an instance, estimated on an n×n
// grid of jitter positions inside its cell (tests compare the count with Σ of these).
func (e *siteEnv) siteProbability(i, j int32, n int) float64 {
	var sum float64
	for b := 0; b < n; b++ {
		for a := 0; a < n; a++ {
			ux := (float32(a) + 0.5) / float32(n)
			uz := (float32(b) + 0.5) / float32(n)
			px := e.fmin[0] + float32((float32(i)+ux)*e.s)
			pz := e.fmin[1] + float32((float32(j)+uz)*e.s)
			if !(px < e.end[0] && pz < e.end[1]) {
				continue
			}
			sum += min(1, float64(e.density.Bilinear(px, pz)*e.s2))
		}
	}
	return sum / float64(n*n)
}
