package bake

import (
	"context"
	"errors"
	"fmt"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
)

// GPUEvaluator is the WGSL twin: the kernels of a GPU. A call whose work the device cannot hold
// (gpu.ErrTooLarge) is done by the Go reference, with a warning; a whole-field bake is banded
// within the device's limits instead (GPU.Bake).
type GPUEvaluator struct {
	g    *GPU
	warn func(string) // Choice.Warn
	// auto: chosen by ModeAuto, which leaves erosion on a software adapter to the Go reference
	// (Erode); ModeGPU erodes on any device.
	auto bool
}

// GPU is the evaluator's GPU, for the editor, which keeps its weights on the device for the
// viewport to sample and writes pages of them into the viewport's atlas (GPU.RunInto).
func (e *GPUEvaluator) GPU() *GPU { return e.g }

// Name is "GPU" and the adapter, in words.
func (e *GPUEvaluator) Name() string { return "GPU " + e.g.Dev.Info.String() }

// fallback warns that err sent this call to the Go reference and returns that reference.
func (e *GPUEvaluator) fallback(opt *Options, msg string) *ReferenceEvaluator {
	switch {
	case opt.Warn != nil:
		opt.Warn(msg)
	case e.warn != nil:
		e.warn(msg)
	}
	return &ReferenceEvaluator{name: "Go reference"}
}

// Landscape is GPU.Bake with the scatter, timed into tm.
func (e *GPUEvaluator) Landscape(ctx context.Context, l *landscape.Landscape, opt Options, tm *Timings) (string, error) {
	return e.Name(), e.g.bake(ctx, l, opt, true, tm)
}

// Density is GPU.Density; a grid past the device's limits is the Go reference's.
func (e *GPUEvaluator) Density(ctx context.Context, s *stack.Stack, pop int, f *field.Field, geo *landscape.Geometry, opt Options) (*field.Grid, float32, string, error) {
	dens, mx, err := e.g.Density(ctx, s, pop, f, geo, opt)
	if !errors.Is(err, gpu.ErrTooLarge) {
		return dens, mx, e.Name(), err
	}
	return e.fallback(&opt, FallbackWarning(err)).Density(ctx, s, pop, f, geo, opt)
}

// Scatter uploads l.Weights and runs GPU.Scatter; a grid past the device's limits is scattered by
// the Go reference.
func (e *GPUEvaluator) Scatter(ctx context.Context, l *landscape.Landscape, opt Options) (string, error) {
	err := e.g.UploadWeights(l.Weights)
	if err == nil {
		err = e.g.Scatter(ctx, l, opt)
	}
	if !errors.Is(err, gpu.ErrTooLarge) {
		return e.Name(), err
	}
	return e.fallback(&opt, fmt.Sprintf("%v; scattering with the Go reference", err)).Scatter(ctx, l, opt)
}

// Window runs the weights kernel over the block's tiles, each uploading its block of the
// windows, and reads the weights back; then each population's density kernel over the same tiles
// reading those weights on the device. The bytes are the Go reference's (bit for bit on the
// weights; densities to the kernel's documented tolerance, docs/scatter.md), so a GPU cell and a
// CPU cell write the same weights. A block the device cannot hold, or a device that fails, is the
// Go reference's, with a warning.
func (e *GPUEvaluator) Window(ctx context.Context, s *stack.Stack, geo *landscape.Geometry, wins *Windows, r field.Rect, withDensity bool, opt Options) (*Block, error) {
	b, err := e.window(ctx, s, geo, wins, r, withDensity, opt)
	switch {
	case err == nil:
		return b, nil
	case ctx.Err() != nil && !errors.Is(err, gpu.ErrTooLarge):
		return nil, err
	}
	return e.fallback(&opt, FallbackWarning(err)).Window(ctx, s, geo, wins, r, withDensity, opt)
}

// window is Window on the device. The target is r's own block: its Origin is r's corner, so the
// kernels write each texel at its global index minus that corner (params head lane 4), and the
// density grid is the same band (gpu.ScatterKernel.DensityBand). A block whose target exceeds the
// device is refused with gpu.ErrTooLarge.
func (e *GPUEvaluator) window(ctx context.Context, s *stack.Stack, geo *landscape.Geometry, wins *Windows, r field.Rect, withDensity bool, opt Options) (*Block, error) {
	g := e.g
	dev := g.Dev
	withDensity = withDensity && len(s.Populations) > 0
	lim := dev.Limits
	if m := uint64(lim.MaxTextureDimension2D); m > 0 && (uint64(r.W()) > m || uint64(r.H()) > m) {
		return nil, fmt.Errorf("bake: a %d×%d weights target is larger than the GPU's largest texture (%d): %w", r.W(), r.H(), m, gpu.ErrTooLarge)
	}
	if withDensity {
		if err := g.DensityFits(r.W(), r.H()); err != nil {
			return nil, err
		}
	}
	target, err := dev.NewWeightsTarget(uint32(r.W()), uint32(r.H()))
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	defer target.Release()
	target.Origin = [2]uint32{uint32(r.I0), uint32(r.J0)}
	params, err := stack.Pack(s, geo.Stack)
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	chans, err := wins.slots(s)
	if err != nil {
		return nil, err
	}
	tiles := field.RegionTiles(&geo.Field, r, opt.TileSize, geo.Stack.GradientStep)
	report := opt.progress()
	report("weights", 0, len(tiles))
	var kept []gpu.WeightsTile
	for k, t := range tiles {
		wt, err := windowTile(wins.Height, chans, t)
		if err != nil {
			return nil, err
		}
		if err := g.weights.Run(ctx, target, params, wt); err != nil {
			return nil, fmt.Errorf("bake: tile %d: %w", t.Index, err)
		}
		if withDensity {
			kept = append(kept, wt)
		}
		report("weights", k+1, len(tiles))
	}
	lo, hi, err := target.ReadWeights()
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	// The target is r's block, read back tightly: the weights as they are.
	b := &Block{Weights: &landscape.Weights{W: r.W(), H: r.H(), Lo: lo, Hi: hi}, Backend: e.Name()}
	if !withDensity {
		return b, nil
	}
	g.mu.Lock()
	k, err := g.scatterKernel()
	g.mu.Unlock()
	if err != nil {
		return nil, err
	}
	b.Density, err = densities(s, &opt, func(p int) (*field.Grid, error) {
		return densityWindow(ctx, k, s, p, geo, r, target, kept)
	})
	return b, err
}

// densityWindow runs population p's density kernel k over the kept tiles and returns r's values
// (the kernel's grid is r's block, target's).
func densityWindow(ctx context.Context, k *gpu.ScatterKernel, s *stack.Stack, p int, geo *landscape.Geometry, r field.Rect, target *gpu.WeightsTarget, tiles []gpu.WeightsTile) (*field.Grid, error) {
	pp, err := stack.PackPopulation(s, p, geo.Stack)
	if err != nil {
		return nil, err
	}
	if _, err := k.DensityBand(ctx, pp, target.Origin, target.W, target.H, target, len(tiles), func(i int) (gpu.WeightsTile, error) { return tiles[i], nil }); err != nil {
		return nil, err
	}
	vals, err := k.ReadDensity()
	if err != nil {
		return nil, err
	}
	return &field.Grid{W: r.W(), H: r.H(), Data: vals}, nil
}

// windowTile is gpu.FieldTile over windows: tile t with its buffer blocks copied out of the
// height window and the channel windows bound to chan0..chan3.
func windowTile(height *field.Window, chans [4]*field.Window, t field.Tile) (gpu.WeightsTile, error) {
	buf := field.Rect{I0: t.BufI0, J0: t.BufJ0, I1: t.BufI0 + t.BufW, J1: t.BufJ0 + t.BufH}
	wt := gpu.WeightsTile{
		Origin:    [2]uint32{uint32(t.I0), uint32(t.J0)},
		Size:      [2]uint32{uint32(t.W), uint32(t.H)},
		BufOrigin: [2]uint32{uint32(t.BufI0), uint32(t.BufJ0)},
		BufSize:   [2]uint32{uint32(t.BufW), uint32(t.BufH)},
	}
	g, err := height.Crop(buf)
	if err != nil {
		return wt, fmt.Errorf("bake: tile %d: %w", t.Index, err)
	}
	wt.Height = g.Data
	for i, c := range chans {
		if c == nil {
			continue
		}
		g, err := c.Crop(buf)
		if err != nil {
			return wt, fmt.Errorf("bake: tile %d: %w", t.Index, err)
		}
		wt.Chans[i] = g.Data
	}
	return wt, nil
}

// Release frees the GPU (and its device when the evaluator opened it). Safe on nil and twice.
func (e *GPUEvaluator) Release() {
	if e != nil {
		e.g.Release()
	}
}
