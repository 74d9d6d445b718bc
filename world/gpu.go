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
// gpu.ErrTooLarge and baked with the Go reference. g's device and kernels serve every cell of an
// operation.
func (w *World) evaluateGPU(ctx context.Context, g *bake.GPU, s *stack.Stack, ev *evaluation, withDensity bool, o *Options) error {
	dev := g.Dev
	ev.backend = "GPU " + dev.Info.String()
	withDensity = withDensity && len(s.Populations) > 0
	lim := dev.Limits
	if m := uint64(lim.MaxTextureDimension2D); m > 0 && (uint64(ev.eval.W()) > m || uint64(ev.eval.H()) > m) {
		return fmt.Errorf("world: a %d×%d weights target is larger than the GPU's largest texture (%d): %w", ev.eval.W(), ev.eval.H(), m, gpu.ErrTooLarge)
	}
	if withDensity {
		if err := g.DensityFits(ev.eval.W(), ev.eval.H()); err != nil {
			return err
		}
	}
	wk := g.WeightsKernel()
	target, err := dev.NewWeightsTarget(uint32(ev.eval.W()), uint32(ev.eval.H()))
	if err != nil {
		return fmt.Errorf("world: %w", err)
	}
	defer target.Release()
	target.Origin = [2]uint32{uint32(ev.eval.I0), uint32(ev.eval.J0)}
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
	// The target is eval's block, read back tightly: the weights as they are.
	ev.weights = &bake.Weights{W: ev.eval.W(), H: ev.eval.H(), Lo: lo, Hi: hi}
	ev.density = nil
	if !withDensity {
		return nil
	}
	k, err := g.ScatterKernel()
	if err != nil {
		return err
	}
	return ev.densities(s, o, func(p int) (*field.Grid, error) {
		return densityGPU(ctx, k, s, p, ev, target, kept)
	})
}

// densityGPU runs population p's density kernel k over the kept tiles and returns eval's values
// (the kernel's grid is eval's block, target's).
func densityGPU(ctx context.Context, k *gpu.ScatterKernel, s *stack.Stack, p int, ev *evaluation, target *gpu.WeightsTarget, tiles []gpu.WeightsTile) (*field.Grid, error) {
	pp, err := stack.PackPopulation(s, p, ev.geo.Stack)
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
	return &field.Grid{W: ev.eval.W(), H: ev.eval.H(), Data: vals}, nil
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
