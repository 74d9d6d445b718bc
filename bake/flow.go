package bake

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"strata/field"
	"strata/gpu"

	"github.com/cogentcore/webgpu/wgpu"
)

// gpuFlow is a GPU's flow kernel (gpu.FlowKernel), compiled on first use; mu is held for a
// routing and by Release.
type gpuFlow struct {
	mu sync.Mutex
	k  *gpu.FlowKernel
}

// Flow routes the flow over grid (texels texel metres) with the GPU flow kernel: field.Flow's
// twin (docs/design.md "Flow", "The GPU twin"), the plane within 1e-4 of it in log10.
func (g *GPU) Flow(ctx context.Context, grid *field.Grid, texel [2]float64) (*field.Grid, gpu.FlowStats, error) {
	if g == nil || g.Dev == nil {
		return nil, gpu.FlowStats{}, errors.New("bake: flow: no GPU (nil or released)")
	}
	g.fl.mu.Lock()
	defer g.fl.mu.Unlock()
	if g.fl.k == nil {
		k, err := g.Dev.NewFlowKernel()
		if err != nil {
			return nil, gpu.FlowStats{}, fmt.Errorf("bake: %w", err)
		}
		g.fl.k = k
	}
	return g.fl.k.Route(ctx, grid, texel)
}

func (f *gpuFlow) release() {
	f.mu.Lock()
	f.k.Release()
	f.k = nil
	f.mu.Unlock()
}

// Flow is field.Flow.
func (r *ReferenceEvaluator) Flow(ctx context.Context, g *field.Grid, texel [2]float64) (*field.Grid, string, error) {
	p, err := field.Flow(ctx, g, texel)
	return p, r.name, err
}

// Flow routes with the GPU flow kernel (GPU.Flow); a grid the device cannot hold is routed by the
// Go reference, with a warning. An evaluator ModeAuto chose on a software adapter routes with the
// Go reference, about 100× faster there (docs/PERFORMANCE.md, "Erosion and flow on the GPU").
func (e *GPUEvaluator) Flow(ctx context.Context, g *field.Grid, texel [2]float64) (*field.Grid, string, error) {
	if e.auto && e.g.Dev.Info.Type == wgpu.AdapterTypeCPU {
		p, err := field.Flow(ctx, g, texel)
		return p, "Go reference (faster than the software adapter " + e.g.Dev.Info.Name + ")", err
	}
	p, _, err := e.g.Flow(ctx, g, texel)
	if !errors.Is(err, gpu.ErrTooLarge) {
		return p, e.Name(), err
	}
	opt := Options{}
	return e.fallback(&opt, FallbackWarning(err)).Flow(ctx, g, texel)
}

func (l *lazyEvaluator) Flow(ctx context.Context, g *field.Grid, texel [2]float64) (*field.Grid, string, error) {
	return l.get(ctx).Flow(ctx, g, texel)
}
