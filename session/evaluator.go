package session

import (
	"context"
	"fmt"
	"image"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/stack"
	"strata/viewport"
)

// evaluator is one weights grid kept up to date by one of the two twins: on the GPU the kernel's
// target, which the viewport samples where it is; on the CPU the Go reference's bytes, uploaded
// to the viewport tile by tile.
type evaluator interface {
	// run evaluates tiles of st over f into the grid of geo (re-sized when geo's grid changed).
	run(ctx context.Context, st *stack.Stack, f *field.Field, geo *bake.Geometry, tiles []field.Tile) error
	// show makes the viewport draw this grid: tiles are the ones just evaluated, whole says the
	// viewport showed another grid until now and needs all of it.
	show(v *viewport.Renderer, tiles []field.Tile, whole bool) error
	// gpuTarget is the GPU target (nil for the Go twin), read by the scatter kernels' layer rules.
	gpuTarget() *gpu.WeightsTarget
	release()
}

// gpuEval keeps the weights in a bake.GPU's target. With fb (the field resident on the device,
// kept in step by the pipeline) a pass uploads nothing but the params: one dispatch for the whole
// grid after a rule edit, one per tile after a stroke; without it (a field past one storage
// binding) the tiles are cut and uploaded as a bake does.
type gpuEval struct {
	g  *bake.GPU
	fb *gpu.FieldBuffers
}

func newGPUEval(d *gpu.Device, fb *gpu.FieldBuffers) (*gpuEval, error) {
	g, err := bake.NewGPU(d)
	if err != nil {
		return nil, err
	}
	return &gpuEval{g: g, fb: fb}, nil
}

func (e *gpuEval) run(ctx context.Context, st *stack.Stack, f *field.Field, geo *bake.Geometry, tiles []field.Tile) error {
	if e.fb == nil {
		return e.g.RunTiles(ctx, st, f, geo, tiles, bake.Options{})
	}
	return e.g.RunResident(ctx, st, geo, e.fb, tileRects(&geo.Field, tiles))
}

// tileRects is the weights texels tiles cover: the whole grid in one rect when they are all of
// it, else one rect a tile.
func tileRects(fg *field.Geometry, tiles []field.Tile) []image.Rectangle {
	n := 0
	for _, t := range tiles {
		n += t.W * t.H
	}
	if n >= fg.WeightsW*fg.WeightsH {
		return []image.Rectangle{image.Rect(0, 0, fg.WeightsW, fg.WeightsH)}
	}
	out := make([]image.Rectangle, len(tiles))
	for i, t := range tiles {
		out[i] = image.Rect(t.I0, t.J0, t.I0+t.W, t.J0+t.H)
	}
	return out
}

func (e *gpuEval) show(v *viewport.Renderer, _ []field.Tile, _ bool) error {
	t := e.g.Target()
	if t == nil {
		return fmt.Errorf("session: nothing evaluated on the GPU yet")
	}
	return v.SetControlTextures(t.Lo, t.Hi)
}

func (e *gpuEval) gpuTarget() *gpu.WeightsTarget { return e.g.Target() }
func (e *gpuEval) release()                      { e.g.Release() }

// cpuEval keeps the weights in memory, evaluated by the Go reference on every core.
type cpuEval struct {
	w *bake.Weights
	// slopes are the ground's slopes under this evaluator's geometry, kept from pass to pass (a
	// rule edit does not move the ground; pipeline.resetSlopes forgets them when the height
	// changes). The density pass of the full evaluator's grid reads them too.
	slopes bake.Slopes
}

func (e *cpuEval) run(ctx context.Context, st *stack.Stack, f *field.Field, geo *bake.Geometry, tiles []field.Tile) error {
	if e.w == nil || e.w.W != geo.Field.WeightsW || e.w.H != geo.Field.WeightsH {
		e.w = bake.NewWeights(geo.Field.WeightsW, geo.Field.WeightsH)
	}
	slopes, err := e.slopesFor(ctx, st, f, geo)
	if err != nil {
		return err
	}
	return bake.ReferenceTiles(ctx, st, f, geo, e.w, tiles, bake.Options{Slopes: slopes})
}

// slopesFor is the slope grid when the stack reads slope anywhere (a layer or a population), nil
// otherwise (nothing to gain from computing it).
func (e *cpuEval) slopesFor(ctx context.Context, st *stack.Stack, f *field.Field, geo *bake.Geometry) (*field.Grid, error) {
	if !st.ReadsSlope() {
		return nil, nil
	}
	return e.slopes.Fill(ctx, st, f, geo)
}

func (e *cpuEval) show(v *viewport.Renderer, tiles []field.Tile, whole bool) error {
	w := e.w
	if w == nil {
		return fmt.Errorf("session: nothing evaluated yet")
	}
	rects := make([]image.Rectangle, 0, len(tiles))
	if whole || len(tiles)*4 > (w.W*w.H)/(field.DefaultTileSize*field.DefaultTileSize)*3 {
		rects = append(rects, image.Rect(0, 0, w.W, w.H))
	} else {
		for _, t := range tiles {
			rects = append(rects, image.Rect(t.I0, t.J0, t.I0+t.W, t.J0+t.H))
		}
	}
	for _, r := range rects {
		for i, src := range [][]byte{w.Lo, w.Hi} {
			var pix []byte
			if r.Dx() == w.W {
				pix = src[4*r.Min.Y*w.W : 4*r.Max.Y*w.W]
			} else {
				pix = make([]byte, 0, 4*r.Dx()*r.Dy())
				for j := r.Min.Y; j < r.Max.Y; j++ {
					pix = append(pix, src[4*(j*w.W+r.Min.X):4*(j*w.W+r.Max.X)]...)
				}
			}
			if err := v.UpdateControlsRect(i, w.W, w.H, r, pix); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *cpuEval) gpuTarget() *gpu.WeightsTarget { return nil }
func (e *cpuEval) release()                      {}

// measure times one tile of st on the GPU and on the Go reference (the slower twin's time is
// what the choice saves) and returns nanoseconds per texel for each; gpuNs is 0 when the GPU
// evaluator could not run. ce is the Go evaluator it timed: the pipeline's full evaluator takes
// it over, with the whole field's slopes it computed on the way.
func measure(ctx context.Context, d *gpu.Device, st *stack.Stack, f *field.Field, geo *bake.Geometry) (gpuNs, cpuNs float64, ce *cpuEval) {
	tiles := geo.Tiles(128)
	t := tiles[len(tiles)/2]
	texels := float64(t.W * t.H)
	time2 := func(e evaluator) float64 {
		best := time.Duration(1 << 62)
		for range 3 {
			t0 := time.Now()
			if err := e.run(ctx, st, f, geo, []field.Tile{t}); err != nil {
				return 0
			}
			if g, ok := e.(*gpuEval); ok {
				g.g.Dev.Wait()
			}
			best = min(best, time.Since(t0))
		}
		return float64(best) / texels
	}
	ce = &cpuEval{}
	cpuNs = time2(ce)
	if d != nil {
		if ge, err := newGPUEval(d, nil); err == nil {
			gpuNs = time2(ge)
			ge.release()
		}
	}
	return gpuNs, cpuNs, ce
}
