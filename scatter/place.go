package scatter

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"strata/field"
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
	per, err := placeTiles(ctx, p, geo, density, height, tiles)
	if err != nil {
		return nil, 0, err
	}
	for _, m := range per {
		total += len(m) / MatrixFloats
	}
	capacity = max(capacity, 0)
	matrices = make([]float32, 0, min(total, capacity)*MatrixFloats)
	for _, m := range per {
		room := capacity*MatrixFloats - len(matrices)
		matrices = append(matrices, m[:min(len(m), room)]...)
	}
	return matrices, total, nil
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

// placeTiles places every tile on all cores and returns each tile's matrices in tile order.
func placeTiles(ctx context.Context, p Params, geo *field.Geometry, density, height *field.Grid, tiles []field.Tile) ([][]float32, error) {
	if err := checkInputs(geo, density, height); err != nil {
		return nil, err
	}
	per := make([][]float32, len(tiles))
	if p.Spacing == 0 {
		return per, nil
	}
	ranges := make([]SiteRange, len(tiles))
	for k, t := range tiles {
		r, err := Sites(geo, p.Spacing, t)
		if err != nil {
			return nil, err
		}
		ranges[k] = r
	}
	env := newSiteEnv(p, geo, density, height)
	var next atomic.Int64
	var wg sync.WaitGroup
	var cancelled atomic.Bool
	for range min(runtime.GOMAXPROCS(0), max(len(tiles), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var m [MatrixFloats]float32
			for {
				k := int(next.Add(1)) - 1
				if k >= len(tiles) {
					return
				}
				if ctx.Err() != nil {
					cancelled.Store(true)
					return
				}
				r := ranges[k]
				var out []float32
				for j := r.J0; j < r.J1; j++ {
					for i := r.I0; i < r.I1; i++ {
						if env.site(i, j, &m) {
							out = append(out, m[:]...)
						}
					}
				}
				per[k] = out
			}
		}()
	}
	wg.Wait()
	if cancelled.Load() {
		return nil, fmt.Errorf("scatter: place: %w", ctx.Err())
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

// NewPool returns an empty pool of capacity instances over the given inputs.
func NewPool(p Params, geo field.Geometry, density, height *field.Grid, capacity int) *Pool {
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
	return out[:min(len(out), pl.Capacity*MatrixFloats)]
}
