package bake

import (
	"context"
	"fmt"
	"time"

	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// ReferenceEvaluator is the Go twin: the exact semantics the kernels are checked against, tile by
// tile on every core.
type ReferenceEvaluator struct {
	name string // "Go reference (--cpu)", "Go reference (no GPU)", "Go reference"
}

// Name says which Go reference this is and why it was chosen.
func (r *ReferenceEvaluator) Name() string { return r.name }

// Landscape is Reference and ScatterReference.
func (r *ReferenceEvaluator) Landscape(ctx context.Context, l *landscape.Landscape, opt Options, tm *Timings) (string, error) {
	t0 := time.Now()
	w, err := Reference(ctx, l.Stack, l.Field, opt)
	tm.Add(StageEvaluate, time.Since(t0))
	if err != nil {
		return "", err
	}
	l.Weights = w
	t0 = time.Now()
	err = ScatterReference(ctx, l, opt)
	tm.Add(StageScatter, time.Since(t0))
	return r.name, err
}

// Density is scatter.Density.
func (r *ReferenceEvaluator) Density(ctx context.Context, s *stack.Stack, pop int, f *field.Field, geo *landscape.Geometry, opt Options) (*field.Grid, float32, string, error) {
	dens, mx, err := scatter.Density(ctx, s, pop, f, scatterGeometry(geo), nil, nil)
	if err != nil {
		return nil, 0, "", fmt.Errorf("bake: %w", err)
	}
	return dens, mx, r.name, nil
}

// Scatter is ScatterReference.
func (r *ReferenceEvaluator) Scatter(ctx context.Context, l *landscape.Landscape, opt Options) (string, error) {
	return r.name, ScatterReference(ctx, l, opt)
}

// Window is ReferenceWindow and scatter.DensityWindow.
func (r *ReferenceEvaluator) Window(ctx context.Context, s *stack.Stack, geo *landscape.Geometry, wins *Windows, rect field.Rect, withDensity bool, opt Options) (*Block, error) {
	w, err := ReferenceWindow(ctx, s, geo, wins, rect, opt)
	if err != nil {
		return nil, err
	}
	b := &Block{Weights: w, Backend: r.name}
	if !withDensity {
		return b, nil
	}
	sg := scatterGeometry(geo)
	b.Density, err = densities(s, &opt, func(p int) (*field.Grid, error) {
		d, _, err := scatter.DensityWindow(ctx, s, p, wins.Height, wins.Channels, sg, rect, w.Lo, w.Hi)
		return d, err
	})
	return b, err
}

// Release does nothing: the Go reference holds nothing between calls.
func (r *ReferenceEvaluator) Release() {}
