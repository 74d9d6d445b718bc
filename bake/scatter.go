package bake

import (
	"context"
	"fmt"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// scatterGeometry is the scatter package's view of the bake geometry (the same numbers).
func scatterGeometry(g *landscape.Geometry) scatter.Geometry {
	return scatter.Geometry{Field: g.Field, Stack: g.Stack}
}

// ScatterReference evaluates every population of l.Stack with the Go reference: its density over
// the weights grid (reading l.Weights for `layer` rules), the spacing from the largest density
// reached, and the placement, grown to the full count.
func ScatterReference(ctx context.Context, l *landscape.Landscape, opt Options) error {
	l.Scatter = l.Scatter[:0]
	geo := scatterGeometry(&l.Geometry)
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
func placeReference(ctx context.Context, pop *stack.Population, maxD float32, geo *field.Geometry, dens, height *field.Grid, tiles []field.Tile) (landscape.Population, error) {
	params := scatter.ParamsFor(pop, maxD)
	out := landscape.Population{Name: pop.Name, Mesh: pop.Mesh, Seed: pop.Seed, Scale: pop.Scale, Density: dens, Spacing: params.Spacing}
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
func (g *GPU) Scatter(ctx context.Context, l *landscape.Landscape, opt Options) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.target == nil {
		return fmt.Errorf("bake: scatter before weights")
	}
	l.Scatter = l.Scatter[:0]
	if len(l.Stack.Populations) == 0 {
		return nil // nothing to place: don't cut the field into tile buffers for nobody
	}
	fg := &l.Geometry.Field
	if err := g.DensityFits(fg.WeightsW, fg.WeightsH); err != nil {
		return err
	}
	tiles := l.Geometry.Tiles(opt.TileSize)
	report := opt.progress()
	for p := range l.Stack.Populations {
		pop := &l.Stack.Populations[p]
		report("scatter "+pop.Name, 0, 2)
		out, err := g.scatterOne(ctx, l, p, tiles)
		if err != nil {
			return fmt.Errorf("bake: population %q: %w", pop.Name, err)
		}
		l.Scatter = append(l.Scatter, out)
		report("scatter "+pop.Name, 2, 2)
	}
	return nil
}

func (g *GPU) scatterOne(ctx context.Context, l *landscape.Landscape, p int, tiles []field.Tile) (landscape.Population, error) {
	pop := &l.Stack.Populations[p]
	params, err := stack.PackPopulation(l.Stack, p, l.Geometry.Stack)
	if err != nil {
		return landscape.Population{}, err
	}
	fg := &l.Geometry.Field
	dens, maxD, err := g.densityWhole(ctx, params, fg.WeightsW, fg.WeightsH, g.target, l.Field, l.Stack.Channels(), tiles)
	if err != nil {
		return landscape.Population{}, err
	}
	sp := scatter.ParamsFor(pop, maxD)
	out := landscape.Population{Name: pop.Name, Mesh: pop.Mesh, Seed: pop.Seed, Scale: pop.Scale, Density: dens, Spacing: sp.Spacing}
	if sp.Spacing == 0 {
		return out, nil
	}
	n, err := g.scatter.Place(ctx, gpu.PlaceJob{Params: sp, Geometry: fg, Height: l.Field.Height, Tiles: tiles})
	if err != nil {
		return out, err
	}
	if out.Matrices, err = g.scatter.ReadMatrices(); err != nil {
		return out, err
	}
	out.Count = n
	return out, nil
}

// scatterKernel is the bake's density and placement kernel, compiled on first use (StartGPU
// compiles it while the sources load). g.mu is held.
func (g *GPU) scatterKernel() (*gpu.ScatterKernel, error) {
	if g.scatter == nil {
		k, err := g.Dev.NewScatterKernel()
		if err != nil {
			return nil, fmt.Errorf("bake: %w", err)
		}
		g.scatter = k
	}
	return g.scatter, nil
}

// DensityFits refuses a w×h density grid the device cannot bind (the caller falls back to the
// Go reference on gpu.ErrTooLarge).
func (g *GPU) DensityFits(w, h int) error {
	if lim, need := g.Dev.Limits.MaxStorageBufferBindingSize, 16+4*uint64(w)*uint64(h); lim > 0 && need > lim {
		return fmt.Errorf("bake: a %dx%d density grid needs %d bytes, the GPU binds at most %d: %w", w, h, need, lim, gpu.ErrTooLarge)
	}
	return nil
}

// densityWhole runs a population's density kernel over tiles of the whole w×h grid, each cut
// from f as it is queued, reading weights (nil: no `layer` rule), and reads the grid back. The
// density stays in the kernel for Place.
func (g *GPU) densityWhole(ctx context.Context, params []uint32, w, h int, weights *gpu.WeightsTarget, f *field.Field, chans []string, tiles []field.Tile) (*field.Grid, float32, error) {
	k, err := g.scatterKernel()
	if err != nil {
		return nil, 0, err
	}
	mx, err := k.DensityBand(ctx, params, [2]uint32{}, uint32(w), uint32(h), weights, len(tiles), func(i int) (gpu.WeightsTile, error) {
		return g.cut.Cut(f, chans, tiles[i])
	})
	if err != nil {
		return nil, 0, err
	}
	vals, err := k.ReadDensity()
	if err != nil {
		return nil, 0, err
	}
	return &field.Grid{W: w, H: h, Data: vals}, mx, nil
}
