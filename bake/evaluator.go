package bake

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"strata/erode"
	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
)

// Evaluator is one of the two twins that evaluate a stack — the WGSL kernels on a device
// (GPUEvaluator) or the Go reference on every core (ReferenceEvaluator) — chosen once, by
// NewEvaluator, and handed to whoever evaluates: a bake (Evaluate), a world's cells, a procgen
// graph's nodes and the editor's live pipeline. A caller never decides between the twins itself;
// when a call's work does not fit the device (gpu.ErrTooLarge) the GPU evaluator does that call
// with its Go twin and says so through the call's Options.Warn (or the Choice's Warn), so the
// caller only hears which evaluator did the work (the backend string each call returns).
type Evaluator interface {
	// Landscape fills l.Weights and l.Scatter from l.Stack over l.Field on l.Geometry (set by the
	// caller, landscape.NewGeometry), timing its phases into tm (nil: none): the whole-field bake.
	Landscape(ctx context.Context, l *landscape.Landscape, opt Options, tm *Timings) (backend string, err error)
	// Density evaluates population pop of s over f on geo's weights grid (no `layer` rule may be
	// read) and returns the grid and its largest value: a procgen mask.
	Density(ctx context.Context, s *stack.Stack, pop int, f *field.Field, geo *landscape.Geometry, opt Options) (*field.Grid, float32, string, error)
	// Scatter places every population of l.Stack over the weights already in l.Weights (computed
	// elsewhere, a procgen graph's), on l.Geometry.
	Scatter(ctx context.Context, l *landscape.Landscape, opt Options) (string, error)
	// Window evaluates block r of geo's weights grid from windows of a larger field (a world's
	// cell) and, when withDensity, each population's density over it.
	Window(ctx context.Context, s *stack.Stack, geo *landscape.Geometry, wins *Windows, r field.Rect, withDensity bool, opt Options) (*Block, error)
	// Erode erodes the height grid g (texels texel metres) with o (erode.Run's contract; g is not
	// changed): the erosion kernels on the device, or erode.Run (erode.go).
	Erode(ctx context.Context, g *field.Grid, texel [2]float64, o erode.Options) (*erode.Result, string, error)
	// Flow routes the flow plane over the height grid g (field.Flow's contract): the flow kernel
	// on the device, or field.Flow (flow.go).
	Flow(ctx context.Context, g *field.Grid, texel [2]float64) (*field.Grid, string, error)
	// Release frees what the evaluator holds (its kernels, and its device when it opened one).
	// Safe on nil and twice.
	Release()
}

var (
	_ Evaluator = (*GPUEvaluator)(nil)
	_ Evaluator = (*ReferenceEvaluator)(nil)
	_ Evaluator = (*lazyEvaluator)(nil)
)

// Mode says which twin a Choice asks for.
type Mode int

const (
	// ModeAuto is the GPU kernels when a device can be used, else the Go reference with one
	// warning (FallbackWarning); with Choice.Measure, the faster of the two on this machine.
	ModeAuto Mode = iota
	// ModeCPU is the Go reference (`--cpu`).
	ModeCPU
	// ModeGPU is the GPU kernels; NewEvaluator fails when they cannot be used.
	ModeGPU
)

// Choice is what NewEvaluator decides from: the one place a program says GPU or Go reference.
type Choice struct {
	Mode Mode
	// Device is a device to borrow (the editor's, shared with its viewport); nil opens one — Start
	// when set, else the best adapter — which the evaluator owns and Release frees.
	Device *gpu.Device
	// Start is a GPU being opened in the background (StartGPU), used when Device is nil. The
	// evaluator takes what it opened; the caller still Releases Start (a no-op once taken).
	Start *GPUStart
	// Warn hears the fallback, once ("no GPU adapter (…); using the Go reference"), and each call's
	// own fallback when that call's Options.Warn is nil.
	Warn func(msg string)
	// Measure, with ModeAuto and a Device, times both twins on a block of a landscape and keeps
	// the faster (the editor's choice at open); its results are written back into it.
	Measure *Measure
}

func (c *Choice) warn(msg string) {
	if c.Warn != nil {
		c.Warn(msg)
	}
}

// NewEvaluator makes the choice. ModeCPU is the Go reference; ModeGPU compiles the kernels on the
// device now (or opens one) and fails when it cannot; ModeAuto with Measure measures both now;
// plain ModeAuto opens nothing until the first call that evaluates — a device and its kernels take
// a while to make, and a run may not need them — and then falls back to the Go reference, warning
// once, when there is no device or it cannot be used.
func NewEvaluator(ctx context.Context, c Choice) (Evaluator, error) {
	switch {
	case c.Mode == ModeCPU:
		if c.Measure != nil {
			c.Measure.CPUNs = c.Measure.reference(ctx)
		}
		return &ReferenceEvaluator{name: "Go reference (--cpu)"}, nil
	case c.Measure != nil:
		return c.measured(ctx)
	case c.Mode == ModeGPU:
		g, err := c.open(ctx)
		if err != nil {
			return nil, err
		}
		return &GPUEvaluator{g: g, warn: c.Warn}, nil
	}
	return &lazyEvaluator{c: c}, nil
}

// open is the GPU the choice names: the kernels on Device, or a device of its own (Start's, or
// the best adapter's).
func (c *Choice) open(ctx context.Context) (*GPU, error) {
	switch {
	case c.Device != nil:
		return NewGPU(c.Device)
	case c.Start != nil:
		return c.Start.wait()
	}
	return OpenGPU(ctx)
}

// auto is ModeAuto's evaluator, resolved now: the GPU when open succeeds, else the Go reference
// and FallbackWarning(err) to Warn.
func (c *Choice) auto(ctx context.Context) Evaluator {
	g, err := c.open(ctx)
	if err != nil {
		g.Release()
		c.warn(FallbackWarning(err))
		return &ReferenceEvaluator{name: "Go reference (no GPU)"}
	}
	return &GPUEvaluator{g: g, warn: c.Warn, auto: true}
}

// FallbackWarning is the line a GPU error is reported with by an evaluator that goes on with the
// Go reference: "no GPU adapter (…)" when the machine has none, the error itself for work larger
// than the device holds (gpu.ErrTooLarge), "the GPU could not be used (…)" otherwise; each ends
// "; using the Go reference".
func FallbackWarning(err error) string {
	switch {
	case errors.Is(err, gpu.ErrNoAdapter):
		return fmt.Sprintf("no GPU adapter (%v); using the Go reference", err)
	case errors.Is(err, gpu.ErrTooLarge):
		return fmt.Sprintf("%v; using the Go reference", err)
	}
	return fmt.Sprintf("the GPU could not be used (%v); using the Go reference", err)
}

// lazyEvaluator is plain ModeAuto: the choice is made at the first call that evaluates.
type lazyEvaluator struct {
	c  Choice
	mu sync.Mutex
	ev Evaluator
}

func (l *lazyEvaluator) get(ctx context.Context) Evaluator {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ev == nil {
		l.ev = l.c.auto(ctx)
	}
	return l.ev
}

func (l *lazyEvaluator) Landscape(ctx context.Context, la *landscape.Landscape, opt Options, tm *Timings) (string, error) {
	return l.get(ctx).Landscape(ctx, la, opt, tm)
}

func (l *lazyEvaluator) Density(ctx context.Context, s *stack.Stack, pop int, f *field.Field, geo *landscape.Geometry, opt Options) (*field.Grid, float32, string, error) {
	return l.get(ctx).Density(ctx, s, pop, f, geo, opt)
}

func (l *lazyEvaluator) Scatter(ctx context.Context, la *landscape.Landscape, opt Options) (string, error) {
	return l.get(ctx).Scatter(ctx, la, opt)
}

func (l *lazyEvaluator) Window(ctx context.Context, s *stack.Stack, geo *landscape.Geometry, wins *Windows, r field.Rect, withDensity bool, opt Options) (*Block, error) {
	return l.get(ctx).Window(ctx, s, geo, wins, r, withDensity, opt)
}

// Release frees the evaluator the first call chose; the next call does not choose again (it gets
// a released evaluator's error).
func (l *lazyEvaluator) Release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ev != nil {
		l.ev.Release()
	}
}

// Block is a block of a larger field's weights grid evaluated (Evaluator.Window): its weights
// and each population's density, r's texels, row 0 at r.J0.
type Block struct {
	Weights *landscape.Weights
	Density []*field.Grid // per population; nil without density
	Backend string        // the evaluator that did it, in words
}

// densities is each population's density(p), reporting "density" progress.
func densities(s *stack.Stack, opt *Options, density func(p int) (*field.Grid, error)) ([]*field.Grid, error) {
	var out []*field.Grid
	report := opt.progress()
	for p := range s.Populations {
		report("density", p, len(s.Populations))
		d, err := density(p)
		if err != nil {
			return nil, fmt.Errorf("bake: population %q: %w", s.Populations[p].Name, err)
		}
		out = append(out, d)
	}
	report("density", len(s.Populations), len(s.Populations))
	return out, nil
}
