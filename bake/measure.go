package bake

import (
	"context"
	"image"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// Measure is the block of a landscape a measured choice times both twins on (Choice.Measure):
// one 128² block in the middle of the weights grid of Geometry, the best of three runs each.
// Neither allocates anything the size of the field.
type Measure struct {
	Stack    *stack.Stack
	Field    *field.Field
	Geometry *landscape.Geometry
	// GPUNs and CPUNs are the nanoseconds per texel measured on the GPU (0: not measured, or the
	// kernels could not run) and on the Go reference; NewEvaluator writes them.
	GPUNs, CPUNs float64
}

// measured is ModeAuto (or ModeGPU) with Measure: the GPU is kept when its time is within 1.5× the
// Go reference's (the slower twin's time is what the choice saves). A software adapter (lavapipe)
// runs the kernels on the same cores as the Go reference, about ten times slower: ModeAuto takes
// the Go reference there without spending the time on proving it.
func (c *Choice) measured(ctx context.Context) (Evaluator, error) {
	m := c.Measure
	m.GPUNs, m.CPUNs = 0, m.reference(ctx)
	if c.Mode == ModeAuto && (c.Device == nil || c.Device.Info.Type == wgpu.AdapterTypeCPU) {
		return &ReferenceEvaluator{name: "Go reference"}, nil
	}
	g, err := c.open(ctx)
	if err != nil {
		g.Release()
		if c.Mode == ModeGPU {
			return nil, err
		}
		return &ReferenceEvaluator{name: "Go reference"}, nil
	}
	m.GPUNs = m.gpu(ctx, g)
	if c.Mode == ModeGPU || (m.GPUNs > 0 && m.GPUNs <= 1.5*m.CPUNs) {
		return &GPUEvaluator{g: g, warn: c.Warn, auto: c.Mode == ModeAuto}, nil
	}
	g.Release()
	return &ReferenceEvaluator{name: "Go reference"}, nil
}

// rect is the measured block.
func (m *Measure) rect() image.Rectangle {
	const n = 128
	fg := &m.Geometry.Field
	x0, z0 := max(0, fg.WeightsW/2-n/2), max(0, fg.WeightsH/2-n/2)
	return image.Rect(x0, z0, min(x0+n, fg.WeightsW), min(z0+n, fg.WeightsH))
}

// best is run's best time of three in nanoseconds per texel of the block; 0 when it fails.
func (m *Measure) best(run func() error) float64 {
	r := m.rect()
	b := time.Duration(1 << 62)
	for range 3 {
		t0 := time.Now()
		if err := run(); err != nil {
			return 0
		}
		b = min(b, time.Since(t0))
	}
	return float64(b) / float64(r.Dx()*r.Dy())
}

// reference is the Go reference's time per texel.
func (m *Measure) reference(ctx context.Context) float64 {
	r := m.rect()
	return m.best(func() error {
		_, err := ReferenceRect(ctx, m.Stack, m.Field, m.Geometry, r.Min.X, r.Min.Y, r.Max.X, r.Max.Y, Options{})
		return err
	})
}

// gpu is g's time per texel, into a target of the block's size; 0 when it cannot run.
func (m *Measure) gpu(ctx context.Context, g *GPU) float64 {
	r := m.rect()
	t, err := g.Dev.NewWeightsTarget(uint32(r.Dx()), uint32(r.Dy()))
	if err != nil {
		return 0
	}
	defer t.Release()
	t.Origin = [2]uint32{uint32(r.Min.X), uint32(r.Min.Y)}
	return m.best(func() error {
		if err := g.RunInto(ctx, m.Stack, m.Field, m.Geometry, nil, r, t); err != nil {
			return err
		}
		g.Dev.Wait()
		return nil
	})
}
