package world

import (
	"context"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/progress"
	"strata/stack"
)

// Options control a cell bake (and the plan's density pass).
type Options struct {
	// CPU forces the Go reference; otherwise the GPU, falling back to the Go reference (with a
	// warning) when there is no adapter or the block does not fit the device.
	CPU bool
	// Progress receives each phase ("read", "weights", "density", "place"), then the write's
	// (landscape.WriteContext: landscape.StageEncodeHeight and landscape.StageEncode in MiB, landscape.StageValidate).
	Progress progress.Func
	// Warn receives fallbacks and other notes, one line each.
	Warn func(msg string)
}

func (o *Options) report() progress.Func {
	if o.Progress == nil {
		return progress.Nop
	}
	return o.Progress
}

// evaluation is a block of the world's weights grid evaluated with the whole world's geometry:
// the weights and every population's density over eval, from windows of the sources.
type evaluation struct {
	geo     landscape.Geometry
	eval    field.Rect // weights texels evaluated
	wins    *bake.Windows
	weights *landscape.Weights // eval's texels
	density []*field.Grid      // per population, eval's texels
	backend string
}

// geometry is the world's geometry for stack s.
func (w *World) geometry(s *stack.Stack) (landscape.Geometry, error) {
	return landscape.WorldGeometry(s, w.Placement(), w.HeightGrid[0], w.HeightGrid[1], w.Resolution)
}

// newEvaluator is the evaluator the cells of one operation share (a plan's density pass, a cell
// bake): the Go reference when Options.CPU, else the GPU, opened at the first evaluation — a
// device and its kernels take a while to make — falling back to the Go reference when there is
// none (Options.Warn hears why, once).
func (o *Options) newEvaluator(ctx context.Context) (bake.Evaluator, error) {
	c := bake.Choice{Warn: o.Warn}
	if o.CPU {
		c.Mode = bake.ModeCPU
	}
	return bake.NewEvaluator(ctx, c)
}

// evaluate evaluates block eval of the weights grid (and each population's density when withDensity),
// reading block hrect of the sources (which must hold eval's apron), with ev (bake.Evaluator.Window:
// a block the device cannot hold is the Go reference's, with a warning). tm (nil: none) times its
// phases, read and evaluate.
func (w *World) evaluate(ctx context.Context, ev bake.Evaluator, tm *bake.Timings, s *stack.Stack, geo landscape.Geometry, eval, hrect field.Rect, withDensity bool, o *Options) (*evaluation, error) {
	report := o.report()
	report("read", 0, 1)
	t0 := time.Now()
	wins, err := w.windows(hrect)
	if err != nil {
		return nil, err
	}
	report("read", 1, 1)
	t0 = tm.Since("read", t0)
	defer tm.Since("evaluate", t0)
	b, err := ev.Window(ctx, s, &geo, wins, eval, withDensity, bake.Options{TileSize: w.Tile, Progress: o.Progress, Warn: o.Warn})
	if err != nil {
		return nil, err
	}
	return &evaluation{geo: geo, eval: eval, wins: wins, weights: b.Weights, density: b.Density, backend: b.Backend}, nil
}

// cropWeights copies block r (weights texels, inside ev.eval) of the evaluated weights.
func (ev *evaluation) cropWeights(r field.Rect) *landscape.Weights {
	return &landscape.Weights{W: r.W(), H: r.H(), Lo: cropBytes(ev.weights.Lo, ev.eval, r, 4), Hi: cropBytes(ev.weights.Hi, ev.eval, r, 4)}
}

// cropBytes cuts block r out of an image of block from, n bytes a texel.
func cropBytes(src []byte, from, r field.Rect, n int) []byte {
	out := make([]byte, r.W()*r.H()*n)
	for j := r.J0; j < r.J1; j++ {
		o := ((j-from.J0)*from.W() + r.I0 - from.I0) * n
		copy(out[(j-r.J0)*r.W()*n:], src[o:o+r.W()*n])
	}
	return out
}

// densityWindow is population p's evaluated density as a window of the weights grid.
func (ev *evaluation) densityWindow(p int) *field.Window {
	return &field.Window{Grid: ev.density[p], I0: ev.eval.I0, J0: ev.eval.J0}
}

// maxOver is population p's largest density over block r (inside ev.eval).
func (ev *evaluation) maxOver(p int, r field.Rect) float32 {
	var mx float32
	d := ev.density[p]
	for j := r.J0; j < r.J1; j++ {
		row := d.Data[(j-ev.eval.J0)*d.W+r.I0-ev.eval.I0:]
		for _, v := range row[:r.W()] {
			mx = max(mx, v)
		}
	}
	return mx
}
