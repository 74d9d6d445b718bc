package bake

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"strata/erode"
	"strata/field"
	"strata/gpu"

	"github.com/cogentcore/webgpu/wgpu"
)

// Erosion is on the evaluators as the stack's evaluation is: the GPU evaluator erodes with the
// erosion kernels (gpu.ErodeKernel, compiled on the first erosion), the Go reference with
// erode.Run; `strata erode`, `strata bench erode`, procgen's terrain.erode and the editor's
// Field → Erode… all erode through the evaluator their program chose (docs/design.md
// "Erosion", "The GPU twin").

// Erode is erode.Run.
func (r *ReferenceEvaluator) Erode(ctx context.Context, g *field.Grid, texel [2]float64, o erode.Options) (*erode.Result, string, error) {
	res, err := erode.Run(ctx, g, texel, o)
	return res, r.name, err
}

// Erode runs the GPU erosion kernels (GPU.Erode); a grid the device cannot hold
// (gpu.ErrTooLarge) is eroded by the Go reference, with a warning. An evaluator ModeAuto chose on
// a software adapter (lavapipe) erodes with the Go reference: the kernels run there on the cores
// the Go reference runs on, slower (docs/PERFORMANCE.md, "Erosion and flow on the GPU": 27 s
// against 19 s for the default preset at 1024²), as ModeAuto with a Measure keeps the Go
// reference there for the stack.
func (e *GPUEvaluator) Erode(ctx context.Context, g *field.Grid, texel [2]float64, o erode.Options) (*erode.Result, string, error) {
	if e.auto && e.g.Dev.Info.Type == wgpu.AdapterTypeCPU {
		res, err := erode.Run(ctx, g, texel, o)
		return res, "Go reference (faster than the software adapter " + e.g.Dev.Info.Name + ")", err
	}
	res, err := e.g.Erode(ctx, g, texel, o)
	if !errors.Is(err, gpu.ErrTooLarge) {
		return res, e.Name(), err
	}
	opt := Options{}
	return e.fallback(&opt, FallbackWarning(err)).Erode(ctx, g, texel, o)
}

func (l *lazyEvaluator) Erode(ctx context.Context, g *field.Grid, texel [2]float64, o erode.Options) (*erode.Result, string, error) {
	return l.get(ctx).Erode(ctx, g, texel, o)
}

// gpuErode is a GPU's erosion kernel, compiled on first use; mu is held for an erosion (one at a
// time on a GPU) and by Release.
type gpuErode struct {
	mu sync.Mutex
	k  *gpu.ErodeKernel
}

// Erode erodes g (texels texel metres) with the GPU erosion kernels on g's device.
func (g *GPU) Erode(ctx context.Context, grid *field.Grid, texel [2]float64, o erode.Options) (*erode.Result, error) {
	if g == nil || g.Dev == nil {
		return nil, errors.New("bake: erode: no GPU (nil or released)")
	}
	g.er.mu.Lock()
	defer g.er.mu.Unlock()
	if g.er.k == nil {
		k, err := g.Dev.NewErodeKernel()
		if err != nil {
			return nil, fmt.Errorf("bake: %w", err)
		}
		g.er.k = k
	}
	return g.er.k.Run(ctx, grid, texel, o)
}

// release frees the erosion kernel (GPU.Release).
func (e *gpuErode) release() {
	e.mu.Lock()
	e.k.Release()
	e.k = nil
	e.mu.Unlock()
}
