package bake

import (
	"context"
	"fmt"

	"strata/field"
	"strata/stack"
)

// Level is level k of the weights' pyramid (field.Geometry.Level, docs/design.md "Levels"): the
// texels (i·2^k, j·2^k), which are exactly what the stack evaluated on the level's own grid
// gives. A container's stored controls give every level of the pyramid this way, without the
// stack.
func (w *Weights) Level(k int) *Weights {
	if k <= 0 {
		return w
	}
	d := 1 << k
	out := NewWeights((w.W+d-1)/d, (w.H+d-1)/d)
	for j := 0; j < out.H; j++ {
		for i := 0; i < out.W; i++ {
			o, s := 4*(j*out.W+i), 4*(j*d*w.W+i*d)
			copy(out.Lo[o:o+4], w.Lo[s:s+4])
			copy(out.Hi[o:o+4], w.Hi[s:s+4])
		}
	}
	return out
}

// Level is level k of g's weights pyramid (field.Geometry.Level) with the stack's view of it.
func (g *Geometry) Level(k int) Geometry {
	out := *g
	out.Field = g.Field.Level(k)
	out.Stack.Stride = uint32(out.Field.StrideOrOne())
	return out
}

// ReferenceRect evaluates the texels [x0, x1) × [z0, z1) of geometry g's weights grid (a page of a
// level of its pyramid) with the Go reference on every core and returns them as a weights block
// of that size: the bytes ReferenceTiles writes there.
func ReferenceRect(ctx context.Context, s *stack.Stack, f *field.Field, g *Geometry, x0, z0, x1, z1 int, opt Options) (*Weights, error) {
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
	w := NewWeights(x1-x0, z1-z0)
	// Rows of 64 texels: small enough to share a page between two cores evenly.
	tiles := field.RegionTiles(&g.Field, field.Rect{I0: x0, J0: z0, I1: x1, J1: z1}, 64, g.Stack.GradientStep)
	return w, forTiles(ctx, tiles, opt, StageEvaluate, func(t field.Tile) {
		evalTileInto(c.Taps(&g.Field, f.Height, chans, t), t, w, [2]int{x0, z0}, true) // w is fresh
	})
}
