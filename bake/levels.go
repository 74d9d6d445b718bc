package bake

import (
	"context"
	"fmt"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// ReferenceRect evaluates the texels [x0, x1) × [z0, z1) of geometry g's weights grid (a page of a
// level of its pyramid) with the Go reference on every core and returns them as a weights block
// of that size: the bytes ReferenceTiles writes there.
func ReferenceRect(ctx context.Context, s *stack.Stack, f *field.Field, g *landscape.Geometry, x0, z0, x1, z1 int, opt Options) (*landscape.Weights, error) {
	if x0 < 0 || z0 < 0 || x1 > g.Field.WeightsW || z1 > g.Field.WeightsH || x1 <= x0 || z1 <= z0 {
		return nil, fmt.Errorf("bake: rect [%d,%d)×[%d,%d) outside the %d×%d grid", x0, x1, z0, z1, g.Field.WeightsW, g.Field.WeightsH)
	}
	c, err := stack.Compile(s, g.Stack)
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	chans, err := channelGrids(s, f)
	if err != nil {
		return nil, err
	}
	w := landscape.NewWeights(x1-x0, z1-z0)
	// Rows of 64 texels: small enough to share a page between two cores evenly.
	tiles := field.RegionTiles(&g.Field, field.Rect{I0: x0, J0: z0, I1: x1, J1: z1}, 64, g.Stack.GradientStep)
	return w, forTiles(ctx, tiles, opt, StageEvaluate, func(t field.Tile) {
		evalTileInto(c.Taps(&g.Field, f.Height, chans, t), t, w, [2]int{x0, z0}, true) // w is fresh
	})
}
