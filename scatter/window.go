package scatter

import (
	"context"
	"fmt"

	"strata/field"
	"strata/stack"
)

// Density and placement over a block of a larger field (a world cell): the same math as Density
// and Place, reading windows of the whole field's grids, every position placed from the whole
// field's minimum, the site grid the whole field's. So the blocks of a partition of the field
// together give the whole field's densities and instances, bit for bit.

// DensityWindow is Density over block r of the weights grid: height and chans (by channel name)
// are windows holding r's apron (field.Geometry.ApronRect), weightsLo/Hi the final layer bytes of
// r's texels (nil when no rule reads a layer). It returns r's densities (row 0 at r.J0) and their
// maximum.
func DensityWindow(ctx context.Context, s *stack.Stack, pop int, height *field.Window, chans map[string]*field.Window,
	geo Geometry, r field.Rect, weightsLo, weightsHi []byte) (*field.Grid, float32, error) {
	c, err := compileDensity(s, pop, geo)
	if err != nil {
		return nil, 0, err
	}
	fg := &geo.Field
	if need := fg.ApronRect(r, geo.Stack.GradientStep); height == nil || !height.Rect().Contains(need) {
		return nil, 0, fmt.Errorf("scatter: density: the height window does not hold %v, the apron of %v", need, r)
	}
	out := &field.Grid{W: r.W(), H: r.H(), Data: make([]float32, r.Texels())}
	tiles := field.RegionTiles(fg, r, field.DefaultTileSize, geo.Stack.GradientStep)
	channel := func(name string) *field.Window { return chans[name] }
	maxes, err := densityTiles(ctx, c, s, pop, geo, height, channel, weightsLo, weightsHi, out, [2]int{r.I0, r.J0}, tiles, nil)
	if err != nil {
		return nil, 0, err
	}
	return out, maxOf(maxes), nil
}

// NewDensityWindow wraps a window of the density grid (geo's weights grid) for bilinear reads
// placed as NewDensityGrid places them over the whole grid.
func NewDensityWindow(geo *field.Geometry, w *field.Window) DensityGrid {
	d := NewDensityGrid(geo, w.Grid)
	d.i0, d.j0 = w.I0, w.J0
	return d
}

// CellSites is the block of sites whose centres fall in block owned of geo's weights grid, the
// sites Sites gives a tile of that interior, over the whole field's site grid for spacing s. Only
// the block's own sites are held to MaxSites: a world may have far more.
func CellSites(geo *field.Geometry, s float32, owned field.Rect) (SiteRange, error) {
	nx, err := SiteCount(geo, 0, s)
	if err != nil {
		return SiteRange{}, err
	}
	nz, err := SiteCount(geo, 1, s)
	if err != nil {
		return SiteRange{}, err
	}
	r := sitesOf(geo, s, field.Tile{I0: owned.I0, J0: owned.J0, W: owned.W(), H: owned.H()}, nx, nz)
	if r.Count() > MaxSites {
		return SiteRange{}, fmt.Errorf("scatter: spacing %g m gives the block %v %d×%d sites, more than the %d one population may evaluate",
			s, owned, r.I1-r.I0, r.J1-r.J0, int64(MaxSites))
	}
	return r, nil
}

// SiteReach is how far, in weights texels of geo, the placement of a block's sites reads beyond
// the block at spacing s: a site's jittered position lies up to one spacing from the block's edge
// (its centre inside, the jitter within its cell), and the bilinear taps of density and height
// reach one texel further. Two texels are added for float32 rounding.
func SiteReach(geo *field.Geometry, s float32) int {
	if !(s > 0) {
		return 0
	}
	w := min(geo.WTexel[0], geo.WTexel[1])
	h := min(geo.HTexel[0], geo.HTexel[1])
	return int(float64(s)/float64(min(w, h))) + 3
}

// PlaceWindow places the sites of block owned (CellSites) with the Go reference: density is a
// window of the weights grid and height a window of the height grid, each holding the block grown
// by SiteReach (clamped to the grid). It returns every instance, in site row order: exactly the
// instances Place gives those sites over the whole field.
func PlaceWindow(ctx context.Context, p Params, geo *field.Geometry, density, height *field.Window, owned field.Rect) ([]float32, int, error) {
	if p.Spacing == 0 {
		return nil, 0, nil
	}
	if density == nil || height == nil {
		return nil, 0, fmt.Errorf("scatter: place: no density or height window")
	}
	sites, err := CellSites(geo, p.Spacing, owned)
	if err != nil {
		return nil, 0, err
	}
	dneed, hneed := PlaceWindows(geo, p.Spacing, owned)
	if !density.Rect().Contains(dneed) {
		return nil, 0, fmt.Errorf("scatter: place: the density window %v does not hold %v", density.Rect(), dneed)
	}
	if !height.Rect().Contains(hneed) {
		return nil, 0, fmt.Errorf("scatter: place: the height window %v does not hold %v", height.Rect(), hneed)
	}
	env := siteEnvOf(p, geo, NewDensityWindow(geo, density), geo.WindowSampler(height, 0, 0, geo.HeightW, geo.HeightH))
	// Bands of site rows, one per unit of parallel work.
	const band = 16
	var ranges []SiteRange
	for j := sites.J0; j < sites.J1; j += band {
		ranges = append(ranges, SiteRange{I0: sites.I0, I1: sites.I1, J0: j, J1: min(j+band, sites.J1)})
	}
	return placeRanges(ctx, &env, ranges, allInstances)
}

// PlaceWindows is the blocks PlaceWindow reads to place block owned's sites at spacing s, clamped
// to the grids: of the density (weights) grid, owned grown by SiteReach, and of the height grid,
// the height texels under that block and one more each side.
func PlaceWindows(geo *field.Geometry, s float32, owned field.Rect) (density, height field.Rect) {
	r := owned.Grow(SiteReach(geo, s))
	conv := func(i, n, m int) int { return int(int64(i) * int64(m) / int64(n)) }
	h := field.Rect{
		I0: conv(r.I0, geo.WeightsW, geo.HeightW) - 1, J0: conv(r.J0, geo.WeightsH, geo.HeightH) - 1,
		I1: conv(r.I1, geo.WeightsW, geo.HeightW) + 2, J1: conv(r.J1, geo.WeightsH, geo.HeightH) + 2,
	}
	return r.Intersect(field.Rect{I1: geo.WeightsW, J1: geo.WeightsH}), h.Intersect(field.Rect{I1: geo.HeightW, J1: geo.HeightH})
}
