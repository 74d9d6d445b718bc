package bake

import (
	"context"
	"errors"
	"fmt"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// This file serves landscapes whose weights do not come from evaluating their stack: a procgen
// graph computes masks with the density kernel and weights of its own, then scatters over them.

// EvaluateDensity evaluates population pop of s over f on the weights grid of the given
// resolution: density · Π band(rule) per texel, with o's evaluator (Evaluator.Density), and
// returns the grid, its largest value and the evaluator used. A procgen mask is a one-rule
// population of density 1. No `layer` rule may be read: there are no weights to read it from.
func EvaluateDensity(ctx context.Context, s *stack.Stack, pop int, f *field.Field, o EvalOptions) (*field.Grid, float32, string, error) {
	geo, err := landscape.NewGeometry(s, f, o.Resolution)
	if err != nil {
		return nil, 0, "", err
	}
	ev, own, err := o.evaluator(ctx)
	if err != nil {
		return nil, 0, "", err
	}
	if own {
		defer ev.Release()
	}
	return ev.Density(ctx, s, pop, f, &geo, o.Options)
}

// EvaluateScatter places every population of l.Stack over weights already in l.Weights (computed
// elsewhere, e.g. by a procgen graph) with o's evaluator (Evaluator.Scatter). It sets l.Geometry
// and l.Scatter and returns the evaluator used.
func EvaluateScatter(ctx context.Context, l *landscape.Landscape, o EvalOptions) (string, error) {
	if l.Stack == nil || l.Field == nil || l.Weights == nil {
		return "", errors.New("bake: scatter: no stack, field or weights")
	}
	var err error
	if l.Geometry, err = landscape.NewGeometry(l.Stack, l.Field, o.Resolution); err != nil {
		return "", err
	}
	if w := l.Weights; w.W != l.Geometry.Field.WeightsW || w.H != l.Geometry.Field.WeightsH {
		return "", fmt.Errorf("bake: scatter: weights are %d×%d, the grid is %d×%d", w.W, w.H, l.Geometry.Field.WeightsW, l.Geometry.Field.WeightsH)
	}
	if len(l.Stack.Populations) == 0 {
		l.Scatter = nil
		return "", nil
	}
	ev, own, err := o.evaluator(ctx)
	if err != nil {
		return "", err
	}
	if own {
		defer ev.Release()
	}
	return ev.Scatter(ctx, l, o.Options)
}

// Density evaluates population pop of s over f on the GPU with terrain_scatter_density, tile by
// tile, and reads the grid back: the GPU twin of scatter.Density for a population with no `layer`
// rule.
func (g *GPU) Density(ctx context.Context, s *stack.Stack, pop int, f *field.Field, geo *landscape.Geometry, opt Options) (*field.Grid, float32, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.weights == nil {
		return nil, 0, errors.New("bake: GPU evaluator is released")
	}
	fg := &geo.Field
	if err := g.DensityFits(fg.WeightsW, fg.WeightsH); err != nil {
		return nil, 0, err
	}
	params, err := stack.PackPopulation(s, pop, geo.Stack)
	if err != nil {
		return nil, 0, fmt.Errorf("bake: %w", err)
	}
	dens, mx, err := g.densityWhole(ctx, params, fg.WeightsW, fg.WeightsH, nil, f, s.Channels(), geo.Tiles(opt.TileSize))
	if err != nil {
		return nil, 0, fmt.Errorf("bake: %w", err)
	}
	return dens, mx, nil
}

// UploadWeights makes w the GPU weights target, for Scatter's `layer` rules to read, when the
// weights were computed elsewhere rather than by RunTiles.
func (g *GPU) UploadWeights(w *landscape.Weights) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.weights == nil {
		return errors.New("bake: GPU evaluator is released")
	}
	if err := g.ensureTarget(w.W, w.H); err != nil {
		return err
	}
	if err := g.target.Lo.Write(w.Lo); err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	if err := g.target.Hi.Write(w.Hi); err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	return nil
}
