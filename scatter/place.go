package scatter

import (
	"context"
	"fmt"
	"slices"

	"strata/field"
	"strata/internal/pool"
)

// Place is terrain_scatter_place's reference over the given tiles: each tile's sites (Sites),
// each site's instance (docs/design.md), written into a pool of capacity instances. Like the
// kernel's atomic counter, total keeps counting past capacity and only the first capacity
// instances are returned, so a caller learns how far to grow. The Go order is deterministic (tile
// order, then sites row by row); the GPU's slot order is not, and nothing may depend on it.
//
// density is the population's density on geo's weights grid, height the height grid. A spacing of
// 0 places nothing.
func Place(ctx context.Context, p Params, geo *field.Geometry, density, height *field.Grid, tiles []field.Tile, capacity int) (matrices []float32, total int, err error) {
	env, ranges, err := prepare(p, geo, density, height, tiles)
	if err != nil || p.Spacing == 0 {
		return nil, 0, err
	}
	return placeRanges(ctx, &env, ranges, max(capacity, 0))
}

// allInstances is placeRanges' capacity for every instance, refused past MaxInstances.
const allInstances = -1

// placeRanges counts the instances of every range, then writes the first capacity of them in
// range order into exactly sized memory (capacity < 0: all of them, which must be at most
// MaxInstances). total is the count of all, past capacity too.
func placeRanges(ctx context.Context, env *siteEnv, ranges []SiteRange, capacity int) (matrices []float32, total int, err error) {
	counts, err := countTiles(ctx, env, ranges)
	if err != nil {
		return nil, 0, err
	}
	offsets := make([]int, len(counts))
	for k, c := range counts {
		offsets[k] = total
		total += c
	}
	if capacity < 0 {
		if err := checkTotal(total); err != nil {
			return nil, 0, err
		}
		capacity = total
	}
	matrices = make([]float32, min(total, capacity)*MatrixFloats)
	err = forTiles(ctx, len(ranges), func(k int) {
		lo, hi := min(offsets[k], capacity), min(offsets[k]+counts[k], capacity)
		if hi > lo {
			env.writeSites(ranges[k], matrices[lo*MatrixFloats:hi*MatrixFloats])
		}
	})
	if err != nil {
		return nil, 0, err
	}
	return matrices, total, nil
}

// checkTotal refuses a population of more than MaxInstances instances.
func checkTotal(total int) error {
	if total > MaxInstances {
		return fmt.Errorf("scatter: %d instances (%.1f GB of matrices), more than the %d one population may hold", total, float64(total)*64/1e9, MaxInstances)
	}
	return nil
}

// checkInputs reports grids that do not match geo.
func checkInputs(geo *field.Geometry, density, height *field.Grid) error {
	if geo == nil {
		return fmt.Errorf("scatter: nil geometry")
	}
	if density == nil || density.W != geo.WeightsW || density.H != geo.WeightsH || len(density.Data) < density.W*density.H {
		return fmt.Errorf("scatter: density grid must be the %d×%d weights grid", geo.WeightsW, geo.WeightsH)
	}
	if height == nil || height.W != geo.HeightW || height.H != geo.HeightH || len(height.Data) < height.W*height.H {
		return fmt.Errorf("scatter: height grid must be the %d×%d height grid", geo.HeightW, geo.HeightH)
	}
	return nil
}

// prepare checks the inputs and computes each tile's sites.
func prepare(p Params, geo *field.Geometry, density, height *field.Grid, tiles []field.Tile) (siteEnv, []SiteRange, error) {
	if err := checkInputs(geo, density, height); err != nil {
		return siteEnv{}, nil, err
	}
	ranges := make([]SiteRange, len(tiles))
	if p.Spacing == 0 {
		return siteEnv{}, ranges, nil
	}
	for k, t := range tiles {
		r, err := Sites(geo, p.Spacing, t)
		if err != nil {
			return siteEnv{}, nil, err
		}
		ranges[k] = r
	}
	return newSiteEnv(p, geo, density, height), ranges, nil
}

// countTiles is the number of instances each range carries. Counting first, then writing into
// exactly sized memory, costs a second evaluation of each site but no reallocation or copying of
// the pool, which dominated otherwise (a million instances are 64 MB).
func countTiles(ctx context.Context, env *siteEnv, ranges []SiteRange) ([]int, error) {
	counts := make([]int, len(ranges))
	err := forTiles(ctx, len(ranges), func(k int) {
		var m [MatrixFloats]float32
		r := ranges[k]
		n := 0
		for j := r.J0; j < r.J1; j++ {
			for i := r.I0; i < r.I1; i++ {
				if env.site(i, j, &m) {
					n++
				}
			}
		}
		counts[k] = n
	})
	return counts, err
}

// writeSites writes the instances of r in row order into dst until it is full.
func (e *siteEnv) writeSites(r SiteRange, dst []float32) {
	var m [MatrixFloats]float32
	o := 0
	for j := r.J0; j < r.J1; j++ {
		for i := r.I0; i < r.I1; i++ {
			if o+MatrixFloats > len(dst) {
				return
			}
			if e.site(i, j, &m) {
				copy(dst[o:o+MatrixFloats], m[:])
				o += MatrixFloats
			}
		}
	}
}

// forTiles runs fn(k) for k in [0, n) on every core and reports a cancelled context.
func forTiles(ctx context.Context, n int, fn func(k int)) error {
	if err := pool.Each(ctx, n, 0, fn, nil); err != nil {
		return fmt.Errorf("scatter: place: %w", err)
	}
	return nil
}

// placeTiles places every tile on all cores and returns each tile's matrices in tile order.
func placeTiles(ctx context.Context, p Params, geo *field.Geometry, density, height *field.Grid, tiles []field.Tile) ([][]float32, error) {
	env, ranges, err := prepare(p, geo, density, height, tiles)
	if err != nil {
		return nil, err
	}
	per := make([][]float32, len(tiles))
	if p.Spacing == 0 {
		return per, nil
	}
	counts, err := countTiles(ctx, &env, ranges)
	if err != nil {
		return nil, err
	}
	err = forTiles(ctx, len(ranges), func(k int) {
		per[k] = make([]float32, counts[k]*MatrixFloats)
		env.writeSites(ranges[k], per[k])
	})
	if err != nil {
		return nil, err
	}
	return per, nil
}

// Pool is the Go twin of the GPU instance pool and of its growth protocol, kept tile by tile so
// that PlaceTiles can re-place part of the field and leave every other tile's instances exactly
// as they were.
type Pool struct {
	Params   Params
	Geometry field.Geometry
	Density  *field.Grid
	Height   *field.Grid
	// Capacity is the number of instances the pool holds; Run and PlaceTiles grow it to the
	// total, as a GPU caller grows its buffer.
	Capacity int
	// Grows counts the times a run found the pool too small and ran again.
	Grows int

	byTile map[int][]float32
}

// NewPool returns an empty pool of capacity instances over the given inputs. The capacity is a
// reservation (a manifest's count, say) and is clamped to [0, MaxInstances]: no claim can make
// the pool's arithmetic overflow or its first allocation exhaust memory.
func NewPool(p Params, geo field.Geometry, density, height *field.Grid, capacity int) *Pool {
	capacity = min(max(capacity, 0), MaxInstances)
	return &Pool{Params: p, Geometry: geo, Density: density, Height: height, Capacity: capacity, byTile: map[int][]float32{}}
}

// Run places every tile: with the pool's capacity, and when the total is larger, again with the
// pool grown to it — the protocol the GPU caller follows, so a population that outgrew its
// reservation ends up complete.
func (pl *Pool) Run(ctx context.Context, tiles []field.Tile) error {
	_, total, err := Place(ctx, pl.Params, &pl.Geometry, pl.Density, pl.Height, tiles, pl.Capacity)
	if err != nil {
		return err
	}
	if err := checkTotal(total); err != nil {
		return err
	}
	if total > pl.Capacity {
		pl.Capacity = total
		pl.Grows++
	}
	pl.byTile = map[int][]float32{}
	return pl.PlaceTiles(ctx, tiles)
}

// PlaceTiles re-places only the given tiles (after an edit changed their density): their old
// instances are dropped and their sites evaluated again; every other tile keeps its instances bit
// for bit, because a site's instance depends only on its indices, the seed and the density at its
// position.
func (pl *Pool) PlaceTiles(ctx context.Context, tiles []field.Tile) error {
	per, err := placeTiles(ctx, pl.Params, &pl.Geometry, pl.Density, pl.Height, tiles)
	if err != nil {
		return err
	}
	if pl.byTile == nil {
		pl.byTile = map[int][]float32{}
	}
	for k, t := range tiles {
		pl.byTile[t.Index] = per[k]
	}
	if n := pl.Total(); n > pl.Capacity {
		pl.Capacity = n
		pl.Grows++
	}
	return nil
}

// Total is the number of instances the pool's tiles carry.
func (pl *Pool) Total() int {
	n := 0
	for _, m := range pl.byTile {
		n += len(m) / MatrixFloats
	}
	return n
}

// Matrices is the pool's content, tile by tile in ascending tile index, capped at Capacity.
func (pl *Pool) Matrices() []float32 {
	idx := make([]int, 0, len(pl.byTile))
	for k := range pl.byTile {
		idx = append(idx, k)
	}
	slices.Sort(idx)
	var out []float32
	for _, k := range idx {
		out = append(out, pl.byTile[k]...)
	}
	n := min(len(out)/MatrixFloats, max(pl.Capacity, 0)) // Capacity is a count: never multiply it
	return out[:n*MatrixFloats]
}
