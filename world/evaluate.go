package world

import (
	"context"
	"errors"
	"fmt"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/progress"
	"strata/scatter"
	"strata/stack"
)

// Options control a cell bake (and the plan's density pass).
type Options struct {
	// CPU forces the Go reference; otherwise the GPU, falling back to the Go reference (with a
	// warning) when there is no adapter or the block does not fit the device.
	CPU bool
	// Progress receives each phase ("read", "weights", "density", "place"), then the write's
	// (bake.WriteContext: bake.StageEncodeHeight and bake.StageEncode in MiB, bake.StageValidate).
	Progress progress.Func
	// Warn receives fallbacks and other notes, one line each.
	Warn func(msg string)
}

func (o *Options) warn(format string, a ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, a...))
	}
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
	geo     bake.Geometry
	eval    field.Rect // weights texels evaluated
	wins    *bake.Windows
	weights *bake.Weights // eval's texels
	density []*field.Grid // per population, eval's texels
	backend string
}

// geometry is the world's geometry for stack s.
func (w *World) geometry(s *stack.Stack) (bake.Geometry, error) {
	return bake.WorldGeometry(s, w.Placement(), w.HeightGrid[0], w.HeightGrid[1], w.Resolution)
}

// cellGPU is the GPU the cells of one operation share (a plan's density pass, a cell bake),
// opened at the first evaluation that wants it — a device and its kernels take a while to make —
// and nil for the Go reference: asked for (Options.CPU), or no GPU could be opened (Options.Warn
// hears why, once).
type cellGPU struct {
	g     *bake.GPU
	tried bool
}

// get opens the GPU on first use.
func (c *cellGPU) get(ctx context.Context, o *Options) *bake.GPU {
	if !o.CPU && !c.tried {
		c.tried = true
		c.g = bake.OpenGPUOr(ctx, nil, o.Warn)
	}
	return c.g
}

// release frees the GPU; the next get does not open it again. Safe when never opened.
func (c *cellGPU) release() {
	c.g.Release()
	c.g = nil
}

// evaluate evaluates block eval of the weights grid (and each population's density when withDensity),
// reading block hrect of the sources (which must hold eval's apron): on dev's GPU, falling back to
// the Go reference (with a warning) when the block does not fit the device or the device fails,
// or with the Go reference when there is none. tm (nil: none) times its phases, read and evaluate.
func (w *World) evaluate(ctx context.Context, dev *cellGPU, tm *bake.Timings, s *stack.Stack, geo bake.Geometry, eval, hrect field.Rect, withDensity bool, o *Options) (*evaluation, error) {
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
	ev := &evaluation{geo: geo, eval: eval, wins: wins}
	if g := dev.get(ctx, o); g != nil {
		err := w.evaluateGPU(ctx, g, s, ev, withDensity, o)
		switch {
		case err == nil:
			return ev, nil
		case ctx.Err() != nil && !errors.Is(err, gpu.ErrTooLarge):
			return nil, err
		}
		o.warn("%s", bake.FallbackWarning(err))
	}
	return ev, w.evaluateCPU(ctx, s, ev, withDensity, o)
}

// evaluateCPU is evaluate with the Go reference.
func (w *World) evaluateCPU(ctx context.Context, s *stack.Stack, ev *evaluation, withDensity bool, o *Options) error {
	ev.backend = "Go reference"
	if o.CPU {
		ev.backend = "Go reference (--cpu)"
	}
	var err error
	ev.weights, err = bake.ReferenceWindow(ctx, s, &ev.geo, ev.wins, ev.eval, bake.Options{TileSize: w.Tile, Progress: o.Progress})
	if err != nil {
		return err
	}
	ev.density = nil
	if !withDensity {
		return nil
	}
	sg := scatter.Geometry{Field: ev.geo.Field, Stack: ev.geo.Stack}
	return ev.densities(s, o, func(p int) (*field.Grid, error) {
		d, _, err := scatter.DensityWindow(ctx, s, p, ev.wins.Height, ev.wins.Channels, sg, ev.eval, ev.weights.Lo, ev.weights.Hi)
		return d, err
	})
}

// densities fills ev.density with each population's density(p), reporting progress.
func (ev *evaluation) densities(s *stack.Stack, o *Options, density func(p int) (*field.Grid, error)) error {
	ev.density = nil
	report := o.report()
	for p := range s.Populations {
		report("density", p, len(s.Populations))
		d, err := density(p)
		if err != nil {
			return fmt.Errorf("world: population %q: %w", s.Populations[p].Name, err)
		}
		ev.density = append(ev.density, d)
	}
	report("density", len(s.Populations), len(s.Populations))
	return nil
}

// cropWeights copies block r (weights texels, inside ev.eval) of the evaluated weights.
func (ev *evaluation) cropWeights(r field.Rect) *bake.Weights {
	return &bake.Weights{W: r.W(), H: r.H(), Lo: cropBytes(ev.weights.Lo, ev.eval, r, 4), Hi: cropBytes(ev.weights.Hi, ev.eval, r, 4)}
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
