package session

import (
	"context"
	"errors"
	"image"
	"slices"
	"sync/atomic"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// pageEvaluator writes pages of the weights pyramid into the viewport: one of the two twins,
// chosen when a landscape opens. The GPU's kernel writes a page where the viewport samples it
// (an atlas slot); the Go reference's bytes are uploaded.
type pageEvaluator interface {
	// page evaluates rect (the page's texels, viewport.Renderer.PageRect) of st over f on the
	// level geometry geo and writes it into v as page key of weights generation gen.
	page(ctx context.Context, v *viewport.Renderer, st *stack.Stack, f *field.Field, geo *landscape.Geometry, key viewport.PageKey, gen uint64, rect image.Rectangle) error
	release()
}

// evaluator is the full-resolution weights grid the populations are placed from, kept up to
// date tile by tile by one of the two twins: on the GPU the kernel's target (the scatter kernels'
// layer rules read it there), on the CPU the Go reference's bytes.
type evaluator interface {
	// run evaluates tiles of st over f into the grid of geo (re-sized when geo's grid changed).
	run(ctx context.Context, st *stack.Stack, f *field.Field, geo *landscape.Geometry, tiles []field.Tile) error
	// gpuTarget is the GPU target (nil for the Go twin), read by the scatter kernels' layer rules.
	gpuTarget() *gpu.WeightsTarget
	release()
}

// gpuEval keeps the weights in a bake.GPU's target. With the field resident on the device (res,
// kept in step by the pipeline) a pass uploads nothing but the params: one dispatch for the whole
// grid after a rule edit, one per tile after a stroke; without it (a field past one storage
// binding) the tiles are cut and uploaded as a bake does. While the field is on its way to the
// device the pages are the Go reference's, on every core, rather than blocks cut from the field
// and uploaded beside it (a coarse page's block of a 16K field is tens of megabytes).
type gpuEval struct {
	g   *bake.GPU
	res *resident // the pipeline's
	// fail is the test hook (pipeline.failGPU): set, every evaluation fails as a lost device's
	// would.
	fail *atomic.Bool
}

func (e *gpuEval) run(ctx context.Context, st *stack.Stack, f *field.Field, geo *landscape.Geometry, tiles []field.Tile) error {
	if e.fail != nil && e.fail.Load() {
		return &gpuFailure{errTestGPULost}
	}
	var err error
	if e.res.fb == nil {
		err = e.g.RunTiles(ctx, st, f, geo, tiles, bake.Options{})
	} else {
		err = e.g.RunResident(ctx, st, geo, e.res.fb, tileRects(&geo.Field, tiles))
	}
	return asGPUFailure(err)
}

// gpuFailure is an error of the GPU evaluator (a submission that failed, a lost device): the
// worker switches the session to the Go reference on it (pipeline.fallBack).
type gpuFailure struct{ err error }

func (e *gpuFailure) Error() string { return e.err.Error() }
func (e *gpuFailure) Unwrap() error { return e.err }

// errTestGPULost is what the test hook's failures say.
var errTestGPULost = errors.New("gpu: the device was lost (test hook)")

// asGPUFailure marks an error of the GPU's work as its failure; a cancellation and a full atlas
// (the viewport's budget, not the device) stay what they are.
func asGPUFailure(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, viewport.ErrAtlasFull) {
		return err
	}
	return &gpuFailure{err}
}

// maxPageBlock is the most texels of the field a page of the GPU evaluator may upload when the
// field is not resident: a coarse page covers 2^k times the texels of a fine one on each axis
// (the whole of a 16K field at its top), most of which its samples never read.
var maxPageBlock = int64(16 << 20)

// page writes the page into the viewport's atlas slot on the device. Without the field resident,
// a page whose block of the field is larger than maxPageBlock texels is evaluated by the Go
// reference instead (the twins agree within their usual tolerance).
func (e *gpuEval) page(ctx context.Context, v *viewport.Renderer, st *stack.Stack, f *field.Field, geo *landscape.Geometry, key viewport.PageKey, gen uint64, rect image.Rectangle) error {
	if e.fail != nil && e.fail.Load() {
		return &gpuFailure{errTestGPULost}
	}
	if e.res.uploading() {
		return (&cpuEval{}).page(ctx, v, st, f, geo, key, gen, rect)
	}
	if e.res.fb == nil {
		r := geo.Field.ApronRect(field.Rect{I0: rect.Min.X, J0: rect.Min.Y, I1: rect.Max.X, J1: rect.Max.Y}, geo.Stack.GradientStep)
		if int64(r.W())*int64(r.H()) > maxPageBlock {
			return (&cpuEval{}).page(ctx, v, st, f, geo, key, gen, rect)
		}
	}
	target, slot, err := v.WeightsSlot(key, gen)
	if err != nil {
		return err
	}
	if err := e.g.RunInto(ctx, st, f, geo, e.res.fb, rect, target); err != nil {
		v.UnreserveWeights(slot)
		return asGPUFailure(err)
	}
	v.CommitWeights(key, gen, slot)
	return nil
}

// tileRects is the weights texels tiles cover, in as few rectangles as they make: the whole grid
// in one when they are all of it, else runs of neighbouring tiles along a row merged, and rows of
// the same runs stacked (one dispatch each: a 16384² field in tiles of 256 is 4096 tiles).
func tileRects(fg *field.Geometry, tiles []field.Tile) []image.Rectangle {
	n := 0
	for _, t := range tiles {
		n += t.W * t.H
	}
	if n >= fg.WeightsW*fg.WeightsH {
		return []image.Rectangle{image.Rect(0, 0, fg.WeightsW, fg.WeightsH)}
	}
	sorted := slices.Clone(tiles)
	slices.SortFunc(sorted, func(a, b field.Tile) int {
		if a.J0 != b.J0 {
			return a.J0 - b.J0
		}
		return a.I0 - b.I0
	})
	var runs []image.Rectangle
	for _, t := range sorted {
		r := image.Rect(t.I0, t.J0, t.I0+t.W, t.J0+t.H)
		if k := len(runs) - 1; k >= 0 && runs[k].Min.Y == r.Min.Y && runs[k].Max.Y == r.Max.Y && runs[k].Max.X == r.Min.X {
			runs[k].Max.X = r.Max.X
			continue
		}
		runs = append(runs, r)
	}
	// Stack a run on the one right above it when they span the same columns.
	out := runs[:0:0]
	for _, r := range runs {
		merged := false
		for k := len(out) - 1; k >= 0 && out[k].Max.Y >= r.Min.Y; k-- {
			if out[k].Max.Y == r.Min.Y && out[k].Min.X == r.Min.X && out[k].Max.X == r.Max.X {
				out[k].Max.Y = r.Max.Y
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, r)
		}
	}
	return out
}

func (e *gpuEval) gpuTarget() *gpu.WeightsTarget { return e.g.Target() }
func (e *gpuEval) release()                      { e.g.Release() }

// cpuEval keeps the weights in memory, evaluated by the Go reference on every core.
type cpuEval struct {
	w *landscape.Weights
	// slopes are the ground's slopes under this evaluator's geometry, kept from pass to pass (a
	// rule edit does not move the ground; pipeline.resetSlopes forgets them when the height
	// changes). The density pass of the full evaluator's grid reads them too.
	slopes bake.Slopes
}

func (e *cpuEval) run(ctx context.Context, st *stack.Stack, f *field.Field, geo *landscape.Geometry, tiles []field.Tile) error {
	if e.w == nil || e.w.W != geo.Field.WeightsW || e.w.H != geo.Field.WeightsH {
		// On disk when the field's planes and the weights would take more than their share.
		w, err := landscape.NewWeightsFor(f, geo.Field.WeightsW, geo.Field.WeightsH)
		if err != nil {
			return err
		}
		e.w = w
	}
	slopes, err := e.slopesFor(ctx, st, f, geo)
	if err != nil {
		return err
	}
	return bake.ReferenceTiles(ctx, st, f, geo, e.w, tiles, bake.Options{Slopes: slopes})
}

// page evaluates the page with the Go reference and uploads it.
func (e *cpuEval) page(ctx context.Context, v *viewport.Renderer, st *stack.Stack, f *field.Field, geo *landscape.Geometry, key viewport.PageKey, gen uint64, rect image.Rectangle) error {
	w, err := bake.ReferenceRect(ctx, st, f, geo, rect.Min.X, rect.Min.Y, rect.Max.X, rect.Max.Y, bake.Options{})
	if err != nil {
		return err
	}
	return v.PutWeights(key, gen, w.Lo, w.Hi)
}

// slopesFor is the slope grid when the stack reads slope anywhere (a layer or a population), nil
// otherwise (nothing to gain from computing it).
func (e *cpuEval) slopesFor(ctx context.Context, st *stack.Stack, f *field.Field, geo *landscape.Geometry) (*field.Grid, error) {
	if !st.ReadsSlope() {
		return nil, nil
	}
	return e.slopes.Fill(ctx, st, f, geo)
}

func (e *cpuEval) gpuTarget() *gpu.WeightsTarget { return nil }

// release retires the full weights and the slopes (their planes on disk go back at once; a page
// of them the viewport or a late reader still holds reads zeros).
func (e *cpuEval) release() {
	e.w.Retire()
	e.w = nil
	e.slopes.Retire()
}
