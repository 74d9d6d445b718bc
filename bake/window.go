package bake

import (
	"context"
	"fmt"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// Evaluating a block of a larger field (a world cell, package world): the field is never held
// whole, only windows of its height and channels that hold the block's apron, and every read is
// placed from the whole field's minimum with its texel sizes, so the block's bytes are the whole
// field's there.

// Windows are the parts of a field a block's evaluation reads: the height and each channel the
// stack names, all over the same block of the height grid.
type Windows struct {
	Height   *field.Window
	Channels map[string]*field.Window
}

// slots is the windows bound to chan0..chan3 in the stack's slot order (nil for an unused slot).
func (w *Windows) slots(s *stack.Stack) ([4]*field.Window, error) {
	var out [4]*field.Window
	for i, name := range s.Channels() {
		if i >= 4 {
			return out, fmt.Errorf("bake: the stack reads %d channels %v; at most 4", len(s.Channels()), s.Channels())
		}
		ch := w.Channels[name]
		if ch == nil && name == field.FlowChannel {
			return out, fmt.Errorf("bake: the stack reads flow, which is routed over a whole field's height: a window of a field (a world's cell) cannot give it")
		}
		if ch == nil {
			return out, fmt.Errorf("bake: the stack reads channel %q, which the field does not have", name)
		}
		out[i] = ch
	}
	return out, nil
}

// ReferenceWindow evaluates block r of g's weights grid with the Go reference, reading w (which
// must hold g.Field.ApronRect(r, g.Stack.GradientStep)), tile by tile on every core. The result
// is r's texels, row 0 at r.J0: byte for byte the block of a whole-field Reference.
func ReferenceWindow(ctx context.Context, s *stack.Stack, g *landscape.Geometry, w *Windows, r field.Rect, opt Options) (*landscape.Weights, error) {
	c, err := stack.Compile(s, g.Stack)
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	if need := g.Field.ApronRect(r, g.Stack.GradientStep); w.Height == nil || !w.Height.Rect().Contains(need) {
		return nil, fmt.Errorf("bake: the height window does not hold %v, the apron of %v", need, r)
	}
	chans, err := w.slots(s)
	if err != nil {
		return nil, err
	}
	out := landscape.NewWeights(r.W(), r.H())
	tiles := field.RegionTiles(&g.Field, r, opt.TileSize, g.Stack.GradientStep)
	// "weights", not StageEvaluate: the phase package world reports for a cell's weights, on the
	// GPU as here (world.Options.Progress).
	err = forTiles(ctx, tiles, opt, "weights", func(t field.Tile) {
		evalTile(c, c.TapsWindow(&g.Field, w.Height, chans, t), t, out, [2]int{r.I0, r.J0})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
