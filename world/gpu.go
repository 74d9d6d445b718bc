package world

import (
	"context"
	"fmt"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/stack"
)

// evaluateGPU is evaluate on the GPU: the weights kernel over eval's tiles (each uploading its
// block of the windows, placed in whole-world texels), read back; then each population's density
// kernel over the same tiles reading those weights on the device. The bytes are the Go
// reference's (the twins agree bit for bit on the weights; densities agree to the kernel's
// documented tolerance, docs/scatter.md), so a GPU cell and a CPU cell write the same weights.
//
// The target is eval's own block: its Origin is eval's corner, so the kernels write each texel at
// its global index minus that corner (params head lane 4), and the density grid is the same band
// (gpu.ScatterKernel.DensityBand). A block whose target exceeds the device is refused with
// gpu.ErrTooLarge and baked with the Go reference.
func (w *World) evaluateGPU(ctx context.Context, s *stack.Stack, ev *evaluation, withDensity bool, o *Options) error {
	dev, err := gpu.Open(ctx, gpu.Options{Label: "strata world bake"})
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	defer dev.Release()
	ev.backend = "GPU " + dev.Info.String()
	tr := targetRect(ev.eval)
	withDensity = withDensity && len(s.Populations) > 0
	lim := dev.Limits
	if m := uint64(lim.MaxTextureDimension2D); m > 0 && (uint64(tr.W()) > m || uint64(tr.H()) > m) {
		return fmt.Errorf("world: a %d×%d weights target is larger than the GPU's largest texture (%d): %w", tr.W(), tr.H(), m, gpu.ErrTooLarge)
	}
	if m := lim.MaxStorageBufferBindingSize; withDensity && m > 0 && 16+4*uint64(tr.W())*uint64(tr.H()) > m {
		return fmt.Errorf("world: a %d×%d density grid is larger than the GPU binds (%d bytes): %w", tr.W(), tr.H(), m, gpu.ErrTooLarge)
	}
	wk, err := dev.NewWeightsKernel()
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	defer wk.Release()
	target, err := dev.NewWeightsTarget(uint32(tr.W()), uint32(tr.H()))
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	defer target.Release()
	target.Origin = [2]uint32{uint32(tr.I0), uint32(tr.J0)}
	params, err := stack.Pack(s, ev.geo.Stack)
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	var chans [4]*field.Window
	for i, name := range s.Channels() {
		if i < 4 {
			chans[i] = ev.wins.Channels[name]
		}
	}
	tiles := field.RegionTiles(&ev.geo.Field, ev.eval, w.Tile, ev.geo.Stack.GradientStep)
	report := o.report()
	report("weights", 0, len(tiles))
	var kept []gpu.WeightsTile
	for k, t := range tiles {
		wt, err := windowTile(ev.wins.Height, chans, t)
		if err != nil {
			return err
		}
		if err := wk.Run(ctx, target, params, wt); err != nil {
			return fmt.Errorf("world: tile %d: %w", t.Index, err)
		}
		if withDensity {
			kept = append(kept, wt)
		}
		report("weights", k+1, len(tiles))
	}
	lo, hi, err := target.ReadWeights()
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	ev.weights = &bake.Weights{W: ev.eval.W(), H: ev.eval.H(), Lo: cropBytes(lo, tr, ev.eval, 4), Hi: cropBytes(hi, tr, ev.eval, 4)}
	ev.density, ev.maxes = nil, nil
	if !withDensity {
		return nil
	}
	return ev.densities(s, o, func(p int) (*field.Grid, float32, error) {
		return densityGPU(ctx, dev, s, p, ev, tr, target, kept)
	})
}

// targetRect is the block of the weights grid a GPU target covers for eval: eval itself (the
// target's Origin is its corner).
func targetRect(eval field.Rect) field.Rect { return eval }

// densityGPU runs population p's density kernel over the kept tiles and returns eval's values.
func densityGPU(ctx context.Context, dev *gpu.Device, s *stack.Stack, p int, ev *evaluation, tr field.Rect, target *gpu.WeightsTarget, tiles []gpu.WeightsTile) (*field.Grid, float32, error) {
	k, err := dev.NewScatterKernel()
	if err != nil {
		return nil, 0, err
	}
	defer k.Release()
	pp, err := stack.PackPopulation(s, p, ev.geo.Stack)
	if err != nil {
		return nil, 0, err
	}
	mx, err := k.DensityBand(ctx, pp, target.Origin, uint32(tr.W()), uint32(tr.H()), target, len(tiles), func(i int) (gpu.WeightsTile, error) { return tiles[i], nil })
	if err != nil {
		return nil, 0, err
	}
	vals, err := k.ReadDensity()
	if err != nil {
		return nil, 0, err
	}
	return &field.Grid{W: ev.eval.W(), H: ev.eval.H(), Data: cropFloats(vals, tr, ev.eval)}, mx, nil
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
		return wt, fmt.Errorf("world: tile %d: %w", t.Index, err)
	}
	wt.Height = g.Data
	for i, c := range chans {
		if c == nil {
			continue
		}
		g, err := c.Crop(buf)
		if err != nil {
			return wt, fmt.Errorf("world: tile %d: %w", t.Index, err)
		}
		wt.Chans[i] = g.Data
	}
	return wt, nil
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

// cropFloats cuts block r out of a grid of block from.
func cropFloats(src []float32, from, r field.Rect) []float32 {
	out := make([]float32, r.W()*r.H())
	for j := r.J0; j < r.J1; j++ {
		o := (j-from.J0)*from.W() + r.I0 - from.I0
		copy(out[(j-r.J0)*r.W():], src[o:o+r.W()])
	}
	return out
}
