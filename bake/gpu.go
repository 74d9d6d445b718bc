package bake

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
)

// GPU evaluates weights with the terrain_layer_weights kernel. It owns its device (or borrows
// one), the compiled kernel, the whole-field weights target RunTiles fills (the editor's, re-used
// while the grid size stays the same) and what a bake uses band by band (bake_gpu.go).
type GPU struct {
	Dev    *gpu.Device
	ownDev bool

	mu      sync.Mutex
	weights *gpu.WeightsKernel
	target  *gpu.WeightsTarget
	band    *gpu.WeightsTarget // the bake's band target (never the editor's Target)
	scatter *gpu.ScatterKernel // the bake's density and placement kernel, made on first use
	cut     gpu.TileCutter
	er      gpuErode // the erosion kernel (erode.go), made on the first erosion
	fl      gpuFlow  // the flow kernel (flow.go), made on the first routing
}

// OpenGPU opens the best adapter and compiles the weights kernel. It returns gpu.ErrNoAdapter
// (wrapped) when the machine has no adapter at all; callers then fall back to Reference.
func OpenGPU(ctx context.Context) (*GPU, error) {
	d, err := gpu.Open(ctx, gpu.Options{Label: "strata bake"})
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	g, err := NewGPU(d)
	if err != nil {
		d.Release()
		return nil, err
	}
	g.ownDev = true
	return g, nil
}

// NewGPU uses an already open device (the editor shares one with its viewport).
func NewGPU(d *gpu.Device) (*GPU, error) {
	k, err := d.NewWeightsKernel()
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	return &GPU{Dev: d, weights: k}, nil
}

// Release frees the kernel, the target and, when OpenGPU opened it, the device. Safe on nil and twice.
func (g *GPU) Release() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.target.Release()
	g.target = nil
	g.band.Release()
	g.band = nil
	g.scatter.Release()
	g.scatter = nil
	g.weights.Release()
	g.weights = nil
	g.er.release()
	g.fl.release()
	if g.ownDev {
		g.Dev.Release()
		g.Dev = nil
	}
}

// Target returns the GPU weights textures of the last evaluation (the viewport samples them
// without a CPU round trip); nil before the first.
func (g *GPU) Target() *gpu.WeightsTarget { return g.target }

func (g *GPU) ensureTarget(w, h int) error { return g.ensureSized(&g.target, w, h) }

// ensureSized makes *t a w×h weights target, keeping it when it already is one.
func (g *GPU) ensureSized(t **gpu.WeightsTarget, w, h int) error {
	if *t != nil && (*t).W == uint32(w) && (*t).H == uint32(h) {
		return nil
	}
	(*t).Release()
	*t = nil
	nt, err := g.Dev.NewWeightsTarget(uint32(w), uint32(h))
	if err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	*t = nt
	return nil
}

// RunTiles queues the given tiles of s over f into the GPU target (sized for geo's weights grid).
// Nothing is read back: call Read, or let the viewport sample Target.
func (g *GPU) RunTiles(ctx context.Context, s *stack.Stack, f *field.Field, geo *landscape.Geometry, tiles []field.Tile, opt Options) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.weights == nil {
		return errors.New("bake: GPU evaluator is released")
	}
	params, err := stack.Pack(s, geo.Stack)
	if err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	if _, err := channelGrids(s, f); err != nil {
		return err
	}
	if err := g.ensureTarget(geo.Field.WeightsW, geo.Field.WeightsH); err != nil {
		return err
	}
	report := opt.progress()
	report(StageEvaluate, 0, len(tiles))
	return g.runTiles(ctx, g.target, params, f, s.Channels(), tiles, func(k int) { report(StageEvaluate, k, len(tiles)) })
}

// RunResident queues the weights texels of rects (of geo's weights grid) of s into the GPU
// target, reading the field where fb holds it on the device (FieldBuffers.Upload with
// s.Channels() and Cut first): one dispatch a rect and brick, and no upload but the params and
// the bricks not on the device yet. The editor keeps its
// field there between edits; the bytes are those of RunTiles.
func (g *GPU) RunResident(ctx context.Context, s *stack.Stack, geo *landscape.Geometry, fb *gpu.FieldBuffers, rects []image.Rectangle) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.weights == nil {
		return errors.New("bake: GPU evaluator is released")
	}
	params, err := stack.Pack(s, geo.Stack)
	if err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	if err := g.ensureTarget(geo.Field.WeightsW, geo.Field.WeightsH); err != nil {
		return err
	}
	for _, r := range rects {
		if err := g.weights.RunResident(ctx, g.target, params, fb, 1, r); err != nil {
			return fmt.Errorf("bake: %w", err)
		}
	}
	return nil
}

// runTiles queues tiles into target; done(k) follows each. g.mu held.
func (g *GPU) runTiles(ctx context.Context, target *gpu.WeightsTarget, params []uint32, f *field.Field, chans []string, tiles []field.Tile, done func(k int)) error {
	for k, t := range tiles {
		if err := g.weights.RunField(ctx, target, params, f, chans, t); err != nil {
			return fmt.Errorf("bake: tile %d: %w", t.Index, err)
		}
		done(k + 1)
	}
	return nil
}

// Read waits for queued work and reads the weights target back.
func (g *GPU) Read() (*landscape.Weights, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.target == nil {
		return nil, errors.New("bake: nothing evaluated on the GPU yet")
	}
	lo, hi, err := g.target.ReadWeights()
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	return &landscape.Weights{W: int(g.target.W), H: int(g.target.H), Lo: lo, Hi: hi}, nil
}

// RunInto queues the weights texels rect (of geo's weights grid: a page of a level of its
// pyramid) of s into target — the viewport's atlas slot (viewport.Renderer.WeightsSlot) — reading
// the field where fb holds it on the device, or, with fb nil, from tiles cut out of f and
// uploaded. Nothing is read back.
func (g *GPU) RunInto(ctx context.Context, s *stack.Stack, f *field.Field, geo *landscape.Geometry, fb *gpu.FieldBuffers, rect image.Rectangle, target *gpu.WeightsTarget) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.weights == nil {
		return errors.New("bake: GPU evaluator is released")
	}
	params, err := stack.Pack(s, geo.Stack)
	if err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	if fb != nil {
		if err := g.weights.RunResident(ctx, target, params, fb, geo.Field.StrideOrOne(), rect); err != nil {
			return fmt.Errorf("bake: %w", err)
		}
		return nil
	}
	tiles := field.RegionTiles(&geo.Field, field.Rect{I0: rect.Min.X, J0: rect.Min.Y, I1: rect.Max.X, J1: rect.Max.Y}, GPUTileSize, geo.Stack.GradientStep)
	return g.runTiles(ctx, target, params, f, s.Channels(), tiles, func(int) {})
}
