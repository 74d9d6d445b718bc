package bake

import (
	"context"
	"fmt"

	"strata/field"
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

// MaxInstances is the most instances one population may place in a bake: 32 M matrices are 2 GiB,
// the size of one storage binding on the GPUs we run on (the GPU path refuses past its device's
// own limit with the same kind of message).

const MaxInstances = 1 << 25
