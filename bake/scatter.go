package bake

import (
	"context"
	"fmt"

	"strata/field"
	"strata/gpu"
	"strata/scatter"
	"strata/stack"
)

// scatterGeometry is the scatter package's view of the bake geometry (the same numbers).
func (g *Geometry) scatterGeometry() scatter.Geometry {
	return scatter.Geometry{Field: g.Field, Stack: g.Stack}
}

// ScatterReference evaluates every population of l.Stack with the Go reference: its density over
// the weights grid (reading l.Weights for `layer` rules), the spacing from the largest density
// reached, and the placement, grown to the full count.
func ScatterReference(ctx context.Context, l *Landscape, opt Options) error {
	l.Scatter = l.Scatter[:0]
	geo := l.Geometry.scatterGeometry()
	tiles := l.Geometry.Tiles(opt.TileSize)
	report := opt.progress()
	n := len(l.Stack.Populations)
	if n > 0 {
		report(StageScatter, 0, 2*n)
	}
	for p := range l.Stack.Populations {
		pop := &l.Stack.Populations[p]
		dens, maxD, err := scatter.Density(ctx, l.Stack, p, l.Field, geo, l.Weights.Lo, l.Weights.Hi)
		if err != nil {
			return fmt.Errorf("bake: population %q: %w", pop.Name, err)
		}
		report(StageScatter, 2*p+1, 2*n)
		out, err := placeReference(ctx, pop, maxD, &l.Geometry.Field, dens, l.Field.Height, tiles)
		if err != nil {
			return err
		}
		l.Scatter = append(l.Scatter, out)
		report(StageScatter, 2*p+2, 2*n)
	}
	return nil
}

// placeReference places one population from its density with the Go reference.
func placeReference(ctx context.Context, pop *stack.Population, maxD float32, geo *field.Geometry, dens, height *field.Grid, tiles []field.Tile) (Population, error) {
	params := scatter.ParamsFor(pop, maxD)
	out := Population{Name: pop.Name, Mesh: pop.Mesh, Seed: pop.Seed, Scale: pop.Scale, Density: dens, Spacing: params.Spacing}
	if params.Spacing == 0 {
		return out, nil
	}
	// Count first (capacity 0 allocates nothing), so a population far denser than memory allows
	// is refused by name instead of taking the machine down.
	_, total, err := scatter.Place(ctx, params, geo, dens, height, tiles, 0)
	if err != nil {
		return out, fmt.Errorf("bake: population %q: %w", pop.Name, err)
	}
	if total > MaxInstances {
		return out, fmt.Errorf("bake: population %q places %d instances (%.1f GB of matrices), more than %d: lower its density or add rules",
			pop.Name, total, float64(total)*64/1e9, MaxInstances)
	}
	if out.Matrices, out.Count, err = scatter.Place(ctx, params, geo, dens, height, tiles, total); err != nil {
		return out, fmt.Errorf("bake: population %q: %w", pop.Name, err)
	}
	return out, nil
}

// MaxInstances is the most instances one population may place in a bake (scatter.MaxInstances: 32 M
// matrices are 2 GiB, the size of one storage binding on the GPUs we run on; the GPU path refuses
// past its device's own limit with the same kind of message).
const MaxInstances = scatter.MaxInstances

// Scatter evaluates every population on the GPU: density from the weights target the last
// RunTiles left (no readback of the weights), placement into a GPU pool grown to the full count,
// and both read back for the container.
func (g *GPU) Scatter(ctx context.Context, l *Landscape, opt Options) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.target == nil {
		return fmt.Errorf("bake: scatter before weights")
	}
	l.Scatter = l.Scatter[:0]
	if len(l.Stack.Populations) == 0 {
		return nil // nothing to place: don't cut the field into tile buffers for nobody
	}
	// Refuse before cutting every tile's buffers (a whole copy of the field) when the density grid
	// cannot be bound anyway; the caller falls back to ScatterReference.
	fg := &l.Geometry.Field
	if lim, need := g.Dev.Limits.MaxStorageBufferBindingSize, 16+4*uint64(fg.WeightsW)*uint64(fg.WeightsH); lim > 0 && need > lim {
		return fmt.Errorf("bake: a %dx%d density grid needs %d bytes, the GPU binds at most %d: %w",
			fg.WeightsW, fg.WeightsH, need, lim, gpu.ErrTooLarge)
	}
	tiles := l.Geometry.Tiles(opt.TileSize)
	chans := l.Stack.Channels()
	wtiles := make([]gpu.WeightsTile, len(tiles))
	for i, t := range tiles {
		wt, err := gpu.FieldTile(l.Field, chans, t)
		if err != nil {
			return fmt.Errorf("bake: %w", err)
		}
		wtiles[i] = wt
	}
	report := opt.progress()
	for p := range l.Stack.Populations {
		pop := &l.Stack.Populations[p]
		report("scatter "+pop.Name, 0, 2)
		out, err := g.scatterOne(ctx, l, p, wtiles, tiles)
		if err != nil {
			return fmt.Errorf("bake: population %q: %w", pop.Name, err)
		}
		l.Scatter = append(l.Scatter, out)
		report("scatter "+pop.Name, 2, 2)
	}
	return nil
}

func (g *GPU) scatterOne(ctx context.Context, l *Landscape, p int, wtiles []gpu.WeightsTile, tiles []field.Tile) (Population, error) {
	pop := &l.Stack.Populations[p]
	k, err := g.Dev.NewScatterKernel()
	if err != nil {
		return Population{}, err
	}
	defer k.Release()
	params, err := stack.PackPopulation(l.Stack, p, l.Geometry.Stack)
	if err != nil {
		return Population{}, err
	}
	fg := &l.Geometry.Field
	maxD, err := k.Density(ctx, params, uint32(fg.WeightsW), uint32(fg.WeightsH), g.target, wtiles)
	if err != nil {
		return Population{}, err
	}
	vals, err := k.ReadDensity()
	if err != nil {
		return Population{}, err
	}
	dens := &field.Grid{W: fg.WeightsW, H: fg.WeightsH, Data: vals}
	sp := scatter.ParamsFor(pop, maxD)
	out := Population{Name: pop.Name, Mesh: pop.Mesh, Seed: pop.Seed, Scale: pop.Scale, Density: dens, Spacing: sp.Spacing}
	if sp.Spacing == 0 {
		return out, nil
	}
	n, err := k.Place(ctx, gpu.PlaceJob{Params: sp, Geometry: fg, Height: l.Field.Height, Tiles: tiles})
	if err != nil {
		return out, err
	}
	if out.Matrices, err = k.ReadMatrices(); err != nil {
		return out, err
	}
	out.Count = n
	return out, nil
}
