package bake

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"strata/field"
	"strata/stack"
)

// Evaluating a block of a larger field (a world cell, package world): the field is never held
// whole, only windows of its height and channels that hold the block's apron, and every read is
// placed from the whole field's minimum with its texel sizes, so the block's bytes are the whole
// field's there.

// WorldGeometry places stack s over a field of placement p with a heightW×heightH height grid and
// a weights grid of the given resolution (0 = the height grid): the numbers NewGeometry gives a
// field of that placement and grid, for grids up to field.MaxWorldSide a side.
func WorldGeometry(s *stack.Stack, p field.Placement, heightW, heightH int, resolution float64) (Geometry, error) {
	ww, wh, err := field.WorldWeightsGrid(p, heightW, heightH, resolution)
	if err != nil {
		return Geometry{}, fmt.Errorf("bake: %w", err)
	}
	fg, err := field.WorldGeometry(p, heightW, heightH, ww, wh)
	if err != nil {
		return Geometry{}, fmt.Errorf("bake: %w", err)
	}
	return geometryOf(s, fg, [2]float64{p.Size[0] / float64(heightW), p.Size[1] / float64(heightH)})
}

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
func ReferenceWindow(ctx context.Context, s *stack.Stack, g *Geometry, w *Windows, r field.Rect, opt Options) (*Weights, error) {
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
	out := NewWeights(r.W(), r.H())
	tiles := field.RegionTiles(&g.Field, r, opt.TileSize, g.Stack.GradientStep)
	report := opt.progress()
	total := len(tiles)
	report("weights", 0, total)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var cancelled atomic.Bool
	for range min(opt.workers(), max(total, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row := make([]stack.TexelInputs, 0, field.DefaultTileSize)
			for {
				k := int(next.Add(1)) - 1
				if k >= total {
					return
				}
				if ctx.Err() != nil {
					cancelled.Store(true)
					return
				}
				t := tiles[k]
				tp := c.TapsWindow(&g.Field, w.Height, chans, t)
				row = append(row[:0], make([]stack.TexelInputs, t.W)...)
				for j := t.J0; j < t.J0+t.H; j++ {
					tp.FillRow(j, t.I0, row)
					for i := range row {
						q := c.Weights(&row[i])
						o := ((j-r.J0)*out.W + t.I0 - r.I0 + i) * 4
						copy(out.Lo[o:o+4], q[:4])
						copy(out.Hi[o:o+4], q[4:])
					}
				}
				report("weights", int(done.Add(1)), total)
			}
		}()
	}
	wg.Wait()
	if cancelled.Load() {
		return nil, fmt.Errorf("bake: weights: %w", ctx.Err())
	}
	return out, nil
}
