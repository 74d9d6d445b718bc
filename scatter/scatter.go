// Package scatter is the Go reference of terrain_scatter_density and terrain_scatter_place: a
// population's density over the weights grid, and the instances a world-anchored site grid
// carries at that density (docs/design.md "Scatter", docs/scatter.md).
//
// Every float32 step is written in the order the WGSL twins compute it, and every product that
// feeds a sum is wrapped in an explicit float32 conversion so Go never fuses it into a
// multiply-add. The WGSL side defeats the GPU's own contraction (see place.go), so the site
// positions, the acceptance test and the matrices come out bit-identical on both sides.
//
// scatter imports stack, field and noise only: bake imports scatter, not the other way round.
package scatter

import (
	"fmt"
	"math"

	"strata/field"
	"strata/stack"
)

// Geometry is the float32 placement of one bake, field and stack view of the same numbers. It has
// landscape.Geometry's shape exactly, so bake converts with scatter.Geometry(g) and no number is
// rounded twice.
type Geometry struct {
	Field field.Geometry
	Stack stack.Geometry
}

// Params are what placement needs of a population besides its density: the seed of every site
// hash, the uniform scale range and the site spacing in metres (Spacing of the density reached).
type Params struct {
	Seed    uint32
	Scale   [2]float32 // lo, hi
	Spacing float32    // metres; 0 = nothing is placed
}

// ParamsFor is the placement parameters of population p for a density grid whose maximum is
// maxDensity: the spacing follows from the density actually reached, not from the population's
// nominal density, so a rule set that never reaches full coverage still uses its sites.
func ParamsFor(p *stack.Population, maxDensity float32) Params {
	return Params{Seed: p.Seed, Scale: [2]float32{float32(p.Scale[0]), float32(p.Scale[1])}, Spacing: Spacing(maxDensity)}
}

// Spacing is the site spacing for a density grid whose maximum is maxDensity instances/m²:
// 1/sqrt(max), the coarsest grid whose one-instance-per-site ceiling still reaches the maximum.
// A maximum that is not a positive finite number gives 0: nothing to place.
func Spacing(maxDensity float32) float32 {
	if !(maxDensity > 0) || math.IsInf(float64(maxDensity), 0) {
		return 0
	}
	return float32(1 / math.Sqrt(float64(maxDensity)))
}

// MaxSitesPerAxis bounds the site grid along one axis: a spacing so small that more sites than
// this would be needed is refused instead of dispatching billions of threads.
const MaxSitesPerAxis = 1 << 20

// MaxSites bounds the whole site grid of one population (about 10⁹ candidate sites): every site is
// evaluated twice on the Go path (count, then write), about 45 s on two cores at the measured
// 0.024 G sites/s (docs/PERFORMANCE.md), a quarter of a second on the H200. A spacing that would
// need more is refused by name instead of placing for hours (docs/limits.md).
const MaxSites = 1 << 30

// MaxInstances is the most instances one population may hold: 32 M matrices are 2 GiB, the size
// of one storage binding on the GPUs we run on. A pool never reserves more, whatever a manifest's
// count claims.
const MaxInstances = 1 << 25

// SiteGrid is the number of sites along X and Z for spacing s, refusing a grid past
// MaxSitesPerAxis along an axis or MaxSites in all.
func SiteGrid(geo *field.Geometry, s float32) (nx, nz int, err error) {
	if nx, err = SiteCount(geo, 0, s); err != nil {
		return 0, 0, err
	}
	if nz, err = SiteCount(geo, 1, s); err != nil {
		return 0, 0, err
	}
	if int64(nx)*int64(nz) > MaxSites {
		return 0, 0, fmt.Errorf("scatter: spacing %g m needs %d×%d sites, more than the %d one population may evaluate", s, nx, nz, int64(MaxSites))
	}
	return nx, nz, nil
}

// SiteRange is the block of sites one tile owns: [I0, I1) × [J0, J1) in site indices.
type SiteRange struct {
	I0, J0, I1, J1 int32
}

// Count is the number of sites in the range.
func (r SiteRange) Count() int64 { return int64(r.I1-r.I0) * int64(r.J1-r.J0) }

// Empty reports a range with no site.
func (r SiteRange) Empty() bool { return r.I1 <= r.I0 || r.J1 <= r.J0 }

// siteCentre is min + (i + 0.5)·s in float32, each step rounded.
func siteCentre(fmin float32, i int, s float32) float32 {
	return fmin + float32((float32(i)+0.5)*s)
}

// texelEdge is min + i·wTexel in float32: the world edge of weights texel i. Neighbouring tiles
// compute their shared edge with this one expression, so the tiles partition the sites exactly.
func texelEdge(fmin float32, i int, wTexel float32) float32 {
	return fmin + float32(float32(i)*wTexel)
}

// FieldEnd is the float32 world coordinate of the field's far edge along axis k (0 X, 1 Z):
// min + W·wTexel, the far edge of the last weights texel.
func FieldEnd(geo *field.Geometry, k int) float32 {
	n := geo.WeightsW
	if k == 1 {
		n = geo.WeightsH
	}
	return texelEdge(geo.FieldMin[k], n, geo.WTexel[k])
}

// SiteCount is the number of sites along axis k: the sites whose cell [min + i·s, min + (i+1)·s)
// starts before the field's far edge, i.e. ceil(size/s) computed with the float32 numbers the
// kernels use.
func SiteCount(geo *field.Geometry, k int, s float32) (int, error) {
	if !(s > 0) || math.IsInf(float64(s), 0) {
		return 0, nil
	}
	end := FieldEnd(geo, k)
	est := math.Ceil(float64(end-geo.FieldMin[k]) / float64(s))
	if est > MaxSitesPerAxis {
		return 0, fmt.Errorf("scatter: spacing %g m needs %g sites along an axis (max %d)", s, est, MaxSitesPerAxis)
	}
	n := max(int(est)-2, 0)
	for texelEdge(geo.FieldMin[k], n, s) < end { // cell n starts before the end: it is a site
		n++
	}
	for n > 0 && !(texelEdge(geo.FieldMin[k], n-1, s) < end) {
		n--
	}
	return n, nil
}

// Sites is the block of sites tile t owns: those whose centre min + (i + 0.5)·s lies in the
// tile's world rectangle [min + I0·wTexel, min + (I0+W)·wTexel). The last tile along an axis also
// owns the centres beyond the field's far edge (the last site's cell straddles it; its instance is
// kept only if its jittered position falls inside the field). Computed in Go only and handed to
// the kernel, so both twins place exactly the same sites per tile.
func Sites(geo *field.Geometry, s float32, t field.Tile) (SiteRange, error) {
	nx, nz, err := SiteGrid(geo, s)
	if err != nil {
		return SiteRange{}, err
	}
	return sitesOf(geo, s, t, nx, nz), nil
}

// sitesOf is Sites for a site grid of nx×nz sites.
func sitesOf(geo *field.Geometry, s float32, t field.Tile, nx, nz int) SiteRange {
	var r [2][2]int
	for k := 0; k < 2; k++ {
		n := nx
		if k == 1 {
			n = nz
		}
		t0, tn, nw := t.I0, t.W, geo.WeightsW
		if k == 1 {
			t0, tn, nw = t.J0, t.H, geo.WeightsH
		}
		fmin, wt := geo.FieldMin[k], geo.WTexel[k]
		lo := texelEdge(fmin, t0, wt)
		first := firstAtOrAbove(fmin, s, n, lo)
		last := n
		if t0+tn < nw {
			last = firstAtOrAbove(fmin, s, n, texelEdge(fmin, t0+tn, wt))
		}
		if t0 == 0 {
			first = 0
		}
		r[k] = [2]int{first, max(first, last)}
	}
	return SiteRange{I0: int32(r[0][0]), I1: int32(r[0][1]), J0: int32(r[1][0]), J1: int32(r[1][1])}
}

// firstAtOrAbove is the smallest i in [0, n] whose site centre is >= edge (n when none is).
// Centres are monotonic in i, so a binary search finds it exactly.
func firstAtOrAbove(fmin, s float32, n int, edge float32) int {
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if siteCentre(fmin, mid, s) >= edge {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
