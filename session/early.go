package session

import (
	"cmp"
	"context"
	"image"
	"math"
	"slices"

	"strata/field"
	"strata/scatter"
	"strata/stack"
	"strata/viewport"
)

// Early placement (issue 15, "Progressive open": the visible tiles' instances placed exactly as
// the bake places them, nearest first; docs/design.md "Scatter: early placement").
//
// A population's instances depend on the whole field through one number only: its spacing, from
// the largest density any texel reaches. While the full-resolution tiles are still being
// evaluated that maximum is not known — unless the tiles evaluated so far already reach the most
// the population can reach, its own density (every rule's band is at most 1, so no texel exceeds
// it). Then the spacing is final, and a tile's instances are the bake's as soon as every tile
// whose density its sites read is evaluated: the tile and a margin of half a spacing (a site's
// jittered position lies in its cell) and two texels (the bilinear tap) around it. The
// full-resolution pass evaluates the tiles nearest the camera first, and after each batch that
// leaves more to do, placeEarly places the populations on the tiles that qualify; the placement
// after the last batch places every tile again (popState.early), as it did before.
//
// The Go evaluator's only: on the GPU the whole field is evaluated and placed within the settle
// (2.8–2.9 s at 16384² on the H200), and placing after every batch there cost more than it showed
// (docs/design.md "Early placement").

// nearestFirst orders tiles by their distance (weights texels) from the camera's target, so the
// full-resolution batches and the early placement begin where the artist looks.
func (p *pipeline) nearestFirst(tiles []field.Tile) {
	if len(tiles) < 2 {
		return
	}
	c := p.s.Camera()
	x, z := c.Target[0], c.Target[2]
	if c.Mode == viewport.ViewMap {
		x, z = c.MapCenter[0], c.MapCenter[1]
	}
	fg := &p.geo.Field
	ci := (x - float64(fg.FieldMin[0])) / float64(fg.WTexel[0])
	cj := (z - float64(fg.FieldMin[1])) / float64(fg.WTexel[1])
	dist := func(t field.Tile) float64 {
		dx := max(float64(t.I0)-ci, ci-float64(t.I0+t.W), 0)
		dz := max(float64(t.J0)-cj, cj-float64(t.J0+t.H), 0)
		return dx*dx + dz*dz
	}
	slices.SortStableFunc(tiles, func(a, b field.Tile) int { return cmp.Compare(dist(a), dist(b)) })
}

// earlyTiles is those of done (full-resolution tiles evaluated with the current stack and field)
// whose instances, at spacing s, read the density of done tiles only.
func earlyTiles(fg *field.Geometry, tileSize int, done []field.Tile, s float32) []field.Tile {
	nx, ny := field.TileGrid(fg.WeightsW, fg.WeightsH, tileSize)
	have := make([]bool, nx*ny)
	for _, t := range done {
		have[t.Index] = true
	}
	m := int(math.Ceil(0.5*float64(s)/float64(min(fg.WTexel[0], fg.WTexel[1])))) + 2
	var out []field.Tile
	for _, t := range done {
		r := image.Rect(t.I0-m, t.J0-m, t.I0+t.W+m, t.J0+t.H+m).Intersect(image.Rect(0, 0, fg.WeightsW, fg.WeightsH))
		ok := true
		for ty := r.Min.Y / tileSize; ok && ty <= (r.Max.Y-1)/tileSize; ty++ {
			for tx := r.Min.X / tileSize; tx <= (r.Max.X-1)/tileSize; tx++ {
				if !have[ty*nx+tx] {
					ok = false
					break
				}
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}

// placeEarly places each population on the tiles of done whose instances are already the
// bake's (above), when done reaches the population's own density; it reports whether it placed
// any. done are the full-resolution tiles evaluated since the last placement, with the current
// stack and field.
func (p *pipeline) placeEarly(ctx context.Context, st *stack.Stack, done []field.Tile) (bool, error) {
	p.syncPops(st)
	placed := false
	for i := range st.Populations {
		ps := p.pops[i]
		bound := float32(st.Populations[i].Density)
		ok, err := p.placeEarlyCPU(ctx, st, i, ps, done, bound)
		if err != nil {
			return placed, err
		}
		placed = placed || ok
	}
	if !placed {
		return false, nil
	}
	if p.testHookEarly != nil {
		p.testHookEarly(done)
	}
	return true, p.s.view.SetPopulations(p.popViews())
}

// earlyPick is the tiles of done to place now at params (nil: none), and whether they go into a
// fresh pool (the first early placement of a round, or another spacing) or beside those placed.
func (ps *popState) earlyPick(fg *field.Geometry, tileSize int, done []field.Tile, params scatter.Params) (pick []field.Tile, fresh bool) {
	fresh = !ps.early || params != ps.params
	for _, t := range earlyTiles(fg, tileSize, done, params.Spacing) {
		if fresh || !ps.earlyDone[t.Index] {
			pick = append(pick, t)
		}
	}
	return pick, fresh
}

// earlyPlaced records an early placement of pick at params.
func (ps *popState) earlyPlaced(pick []field.Tile, fresh bool, params scatter.Params) {
	if fresh || ps.earlyDone == nil {
		ps.earlyDone = map[int]bool{}
	}
	for _, t := range pick {
		ps.earlyDone[t.Index] = true
	}
	ps.early, ps.params = true, params
}

func (p *pipeline) placeEarlyCPU(ctx context.Context, st *stack.Stack, i int, ps *popState, done []field.Tile, bound float32) (bool, error) {
	l := p.s.land
	fg := &p.geo.Field
	ce, ok := p.full.(*cpuEval)
	if !ok || ce.w == nil {
		return false, nil
	}
	allTiles := len(p.geo.Tiles(p.s.opts.TileSize))
	if ps.dens == nil || ps.dens.W != fg.WeightsW || ps.dens.H != fg.WeightsH || len(ps.tileMax) != allTiles {
		dens, err := field.NewPlaneLike(fg.WeightsW, fg.WeightsH, l.Field.Height) // on disk with the height
		if err != nil {
			return false, err
		}
		ps.dens = dens
		ps.tileMax = make([]float32, allTiles)
		ps.pool, ps.densAt = nil, nil
	}
	slopes, err := ce.slopesFor(ctx, st, l.Field, &p.geo)
	if err != nil {
		return false, err
	}
	// The density of the tiles evaluated since it was last computed (each batch adds its own).
	if ps.densAt == nil {
		ps.densAt = map[int]uint64{}
	}
	var stale []field.Tile
	for _, t := range done {
		if ps.densAt[t.Index] != p.evaluated[t.Index] {
			stale = append(stale, t)
		}
	}
	if len(stale) > 0 {
		maxes, err := scatter.DensityTiles(ctx, st, i, l.Field, scatter.Geometry{Field: p.geo.Field, Stack: p.geo.Stack}, ce.w.Lo, ce.w.Hi, ps.dens, stale, slopes)
		if err != nil {
			return false, err
		}
		for k, t := range stale {
			ps.tileMax[t.Index] = maxes[k]
			ps.densAt[t.Index] = p.evaluated[t.Index]
		}
	}
	var mx float32
	for _, t := range done {
		mx = max(mx, ps.tileMax[t.Index])
	}
	if mx != bound {
		return false, nil
	}
	params := scatter.ParamsFor(&st.Populations[i], mx)
	if params.Spacing == 0 {
		return false, nil
	}
	pick, fresh := ps.earlyPick(fg, p.s.opts.TileSize, done, params)
	if len(pick) == 0 {
		return false, nil
	}
	if fresh || ps.pool == nil {
		ps.pool = scatter.NewPool(params, p.geo.Field, ps.dens, l.Field.Height, 0)
	}
	ps.pool.Density, ps.pool.Height = ps.dens, l.Field.Height
	if err := ps.pool.PlaceTiles(ctx, pick); err != nil {
		ps.pool = nil
		return false, err
	}
	ps.count = ps.pool.Total()
	ps.earlyPlaced(pick, fresh, params)
	return true, nil
}
