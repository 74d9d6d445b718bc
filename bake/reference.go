package bake

import (
	"context"
	"fmt"
	"runtime"

	"strata/field"
	"strata/internal/pool"
	"strata/landscape"
	"strata/progress"
	"strata/stack"
)

// Options control an evaluation.
type Options struct {
	// TileSize is the tile side in weights texels; 0 = field.DefaultTileSize.
	TileSize int
	// Resolution is metres per weights texel; 0 = the height grid.
	Resolution float64
	// Workers is the number of goroutines; 0 = GOMAXPROCS.
	Workers int
	// BandBytes bounds one band of a GPU bake (bytes of one RGBA8 weights texture of the band);
	// 0 = DefaultBandBytes, < 0 = the device's limits alone (Evaluate on a borrowed GPU: the
	// editor holds the whole field anyway, and a bake that fits in one band leaves its weights in
	// GPU.Target). The device's own limits always bound it; tests lower it to band a small field.
	BandBytes int64
	// Progress receives the bake's stages (StageEvaluate with tiles done of total, …); nil = none.
	Progress progress.Func
	// Slopes, when set, is the slope of every texel of the weights grid (Slopes.Fill): the Go
	// reference reads it instead of sampling the height (ReferenceTiles). nil = sample.
	Slopes *field.Grid
	// Warn hears what this call did otherwise than asked (work the device cannot hold, done by
	// the Go reference), one line each; nil: the evaluator's Choice.Warn.
	Warn func(msg string)
}

func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o *Options) progress() progress.Func {
	if o.Progress == nil {
		return progress.Nop
	}
	return o.Progress
}

// Reference evaluates stack s over field f with the Go reference, tile by tile on every core, and
// returns the weights. It is the exact semantics the GPU kernel is checked against, and the
// fallback when a machine has no GPU.
func Reference(ctx context.Context, s *stack.Stack, f *field.Field, opt Options) (*landscape.Weights, error) {
	g, err := landscape.NewGeometry(s, f, opt.Resolution)
	if err != nil {
		return nil, err
	}
	w, err := landscape.NewWeightsFor(f, g.Field.WeightsW, g.Field.WeightsH) // on disk with f's planes when they are
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	if err := referenceTiles(ctx, s, f, &g, w, g.Tiles(opt.TileSize), opt, true); err != nil {
		return nil, err
	}
	return w, nil
}

// ReferenceTiles re-evaluates only the given tiles of w in place — the dirty tiles of an edit.
// Texels outside them are untouched; because every read is placed from the field minimum, the
// result equals a whole-field evaluation byte for byte.
func ReferenceTiles(ctx context.Context, s *stack.Stack, f *field.Field, g *landscape.Geometry, w *landscape.Weights, tiles []field.Tile, opt Options) error {
	return referenceTiles(ctx, s, f, g, w, tiles, opt, false)
}

// referenceTiles is ReferenceTiles; freshHi says w.Hi is all zero (just allocated), so a texel
// whose layers 4–7 are 0 need not read it (evalTileInto).
func referenceTiles(ctx context.Context, s *stack.Stack, f *field.Field, g *landscape.Geometry, w *landscape.Weights, tiles []field.Tile, opt Options, freshHi bool) error {
	c, err := stack.Compile(s, g.Stack)
	if err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	if w.W != g.Field.WeightsW || w.H != g.Field.WeightsH {
		return fmt.Errorf("bake: weights are %d×%d, the grid is %d×%d", w.W, w.H, g.Field.WeightsW, g.Field.WeightsH)
	}
	chans, err := channelGrids(s, f)
	if err != nil {
		return err
	}
	if sl := opt.Slopes; sl != nil && (sl.W != w.W || sl.H != w.H) {
		return fmt.Errorf("bake: slopes are %d×%d, the weights %d×%d", sl.W, sl.H, w.W, w.H)
	}
	return forTiles(ctx, tiles, opt, StageEvaluate, func(t field.Tile) {
		tp := c.Taps(&g.Field, f.Height, chans, t)
		if opt.Slopes != nil {
			tp.UseSlopes(opt.Slopes)
		}
		evalTileInto(tp, t, w, [2]int{}, freshHi)
	})
}

// forTiles runs eval on every tile, on opt's workers, reporting stage with the tiles done of all
// of them; a cancelled ctx stops it (the weights evaluations' error).
func forTiles(ctx context.Context, tiles []field.Tile, opt Options, stage string, eval func(t field.Tile)) error {
	report := opt.progress()
	total := len(tiles)
	report(stage, 0, total)
	err := pool.Each(ctx, total, opt.workers(), func(k int) { eval(tiles[k]) }, func(d int) { report(stage, d, total) })
	if err != nil {
		return fmt.Errorf("bake: weights: %w", err)
	}
	return nil
}

// channelGrids returns the grids bound to chan0..chan3: the stack's channels in slot order (the
// flow plane for field.FlowChannel), and height for unused slots (never sampled).
func channelGrids(s *stack.Stack, f *field.Field) ([4]*field.Grid, error) {
	var out [4]*field.Grid
	names := s.Channels()
	if len(names) > 4 {
		return out, fmt.Errorf("bake: the stack reads %d channels %v; at most 4", len(names), names)
	}
	for i := range out {
		out[i] = f.Height
		if i < len(names) {
			ch, ok, err := f.ChannelGrid(names[i]) // the flow plane is routed here when not current
			if err != nil {
				return out, fmt.Errorf("bake: %w", err)
			}
			if !ok {
				return out, fmt.Errorf("bake: the stack reads channel %q, which the field does not have (have: %v)", names[i], channelNames(f))
			}
			out[i] = ch
		}
	}
	return out, nil
}

func channelNames(f *field.Field) []string {
	var n []string
	for k := range f.Channels {
		n = append(n, k)
	}
	return n
}

// evalTile evaluates one tile's interior through tp (reading height and channels through the
// tile's apron-inclusive block exactly as the kernel reads its tile buffer) into w, whose texel
// (0, 0) is weights texel at. c is the stack tp was built from (tp alone is read).
func evalTile(c *stack.Compiled, tp stack.Taps, t field.Tile, w *landscape.Weights, at [2]int) {
	evalTileInto(tp, t, w, at, false)
}

// evalTileInto is evalTile; freshHi says w.Hi is all zero, so it is not read where the texel's
// layers 4–7 are 0 (reading untouched memory costs a page fault per 4 KiB: 10 ns a texel).
func evalTileInto(tp stack.Taps, t field.Tile, w *landscape.Weights, at [2]int, freshHi bool) {
	row := make([]stack.TexelInputs, t.W)
	qs := make([][8]uint8, t.W)
	for j := t.J0; j < t.J0+t.H; j++ {
		tp.WeightsRow(j, t.I0, row, qs)
		o := ((j-at[1])*w.W + t.I0 - at[0]) * 4
		lo, hi := w.Lo[o:o+4*len(qs)], w.Hi[o:o+4*len(qs)]
		for k, q := range qs {
			l := lo[4*k : 4*k+4 : 4*k+4]
			l[0], l[1], l[2], l[3] = q[0], q[1], q[2], q[3]
			// Layers 4–7 are zero for a stack of at most four layers: written only when they
			// change, so a fresh Hi is never touched and costs no memory (1 GiB at 16384²).
			h := hi[4*k : 4*k+4 : 4*k+4]
			if q[4]|q[5]|q[6]|q[7] != 0 || !freshHi && h[0]|h[1]|h[2]|h[3] != 0 {
				h[0], h[1], h[2], h[3] = q[4], q[5], q[6], q[7]
			}
		}
	}
}
