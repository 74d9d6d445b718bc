package session

import (
	"context"
	"fmt"
	"image"
	"slices"
	"time"

	"strata/field"
	"strata/gpu"
	"strata/scatter"
	"strata/stack"
	"strata/viewport"
)

// popState is one population kept placed between passes: on the GPU its kernel (density grid and
// instance pool stay on the device; the viewport draws the pool where it is), on the CPU its
// density grid, each tile's largest density and the Go pool.
type popState struct {
	name   string
	mesh   string
	params scatter.Params
	count  int

	// GPU
	kernel *gpu.ScatterKernel
	// heightVer is the pipeline's height version the kernel's height buffer holds.
	heightVer uint64
	// heightEdited is the height texels edited since the kernel last placed (the rows its held
	// windows take again: gpu.PlaceJob.HeightEdited).
	heightEdited image.Rectangle

	// CPU
	dens    *field.Grid
	tileMax []float32
	pool    *scatter.Pool

	// early says the pool holds an early placement (early.go) of the tiles in earlyDone: the next
	// placement places every tile.
	early     bool
	earlyDone map[int]bool
	// densAt is, per tile, the evaluation (pipeline.evaluated) its density in dens was computed
	// from by an early placement.
	densAt map[int]uint64
}

func (ps *popState) release() {
	if ps != nil {
		ps.kernel.Release()
		ps.kernel = nil
		ps.dens.Retire() // the viewport's density overlay may still hold its Data: retired, not unmapped
		ps.dens, ps.pool = nil, nil
	}
}

// tileCache keeps the field's tiles cut into the GPU's block layout (height and bound channels
// with their aprons) for the density kernel, so a pass re-cuts only what an edit changed.
type tileCache struct {
	tiles map[int]gpu.WeightsTile
	chans []string
}

func (c *tileCache) reset() {
	if c != nil {
		c.tiles, c.chans = nil, nil
	}
}

// forget drops the tiles whose blocks an edit of the field may have changed.
func (c *tileCache) forget(idx []int) {
	if c == nil {
		return
	}
	for _, i := range idx {
		delete(c.tiles, i)
	}
}

func (c *tileCache) get(f *field.Field, chans []string, t field.Tile) (gpu.WeightsTile, error) {
	if !slices.Equal(chans, c.chans) {
		c.tiles, c.chans = nil, append([]string(nil), chans...)
	}
	if c.tiles == nil {
		c.tiles = map[int]gpu.WeightsTile{}
	}
	if wt, ok := c.tiles[t.Index]; ok {
		return wt, nil
	}
	wt, err := gpu.FieldTile(f, chans, t)
	if err != nil {
		return wt, err
	}
	c.tiles[t.Index] = wt
	return wt, nil
}

// scatter re-places the populations after a pass that evaluated tiles (nil: none). all says every
// tile of every population must be placed again (a population changed, or the field did
// everywhere); hold keeps each population's spacing while a drag or stroke is open, so only the
// touched tiles move; when it ends, a pass with all (a drag) or respace (a stroke: the Go
// evaluator's densities are current, so every tile is placed again only where the spacing the
// maximum gives changed) re-places what the new maximum demands.
func (p *pipeline) scatter(ctx context.Context, st *stack.Stack, tiles []field.Tile, all, respace, hold bool) error {
	s := p.s
	p.syncPops(st)
	allTiles := p.geo.Tiles(s.opts.TileSize)
	for i := range st.Populations {
		ps := p.pops[i]
		touched := tiles
		if all || ps.params.Spacing == 0 || ps.early {
			touched = allTiles
		}
		if len(touched) == 0 && !respace {
			continue
		}
		var err error
		if p.mode == GPU {
			if p.failGPU.Load() {
				err = &gpuFailure{errTestGPULost}
			} else {
				err = asGPUFailure(p.placeGPU(ctx, st, i, ps, touched, allTiles, hold))
			}
		} else {
			err = p.placeCPU(ctx, st, i, ps, touched, allTiles, hold)
		}
		if err != nil {
			return fmt.Errorf("population %q: %w", ps.name, err)
		}
		ps.early, ps.earlyDone, ps.densAt = false, nil, nil
	}
	return s.view.SetPopulations(p.popViews())
}

// popViews is what the viewport draws of the kept populations.
func (p *pipeline) popViews() []viewport.Population {
	var views []viewport.Population
	for _, ps := range p.pops {
		vp := viewport.Population{Name: ps.name, Mesh: viewport.Mesh(ps.mesh), Count: ps.count}
		if ps.kernel != nil {
			// The pool and its device count (drawn indirectly, so a run that did not wait for
			// its count is drawn whole), or nothing when the pool can hold no instance.
			if ps.kernel.Bound() > 0 {
				vp.Pool, vp.Counter = ps.kernel.Pool().Buf, ps.kernel.Counter().Buf
			}
		} else if ps.pool != nil {
			vp.Matrices = ps.pool.Matrices()
			vp.Count = len(vp.Matrices) / scatter.MatrixFloats
		}
		views = append(views, vp)
	}
	return views
}

// syncPops matches the kept populations to st's by name; a new or renamed one starts empty.
func (p *pipeline) syncPops(st *stack.Stack) {
	next := make([]*popState, len(st.Populations))
	for i, sp := range st.Populations {
		for k, ps := range p.pops {
			if ps != nil && ps.name == sp.Name {
				next[i], p.pops[k] = ps, nil
				break
			}
		}
		if next[i] == nil {
			next[i] = &popState{name: sp.Name}
		}
		next[i].mesh = sp.Mesh
	}
	for _, ps := range p.pops {
		ps.release()
	}
	p.pops = next
}

func (p *pipeline) placeCPU(ctx context.Context, st *stack.Stack, i int, ps *popState, touched, allTiles []field.Tile, hold bool) error {
	l := p.s.land
	fg := &p.geo.Field
	if ps.dens == nil || ps.dens.W != fg.WeightsW || ps.dens.H != fg.WeightsH {
		dens, err := field.NewPlaneLike(fg.WeightsW, fg.WeightsH, l.Field.Height) // on disk with the height
		if err != nil {
			return err
		}
		ps.dens = dens
		ps.tileMax = make([]float32, len(allTiles))
		touched = allTiles
	}
	ce, ok := p.full.(*cpuEval)
	if !ok || ce.w == nil {
		return fmt.Errorf("the Go scatter needs the Go evaluator's weights")
	}
	w := ce.w
	slopes, err := ce.slopesFor(ctx, st, l.Field, &p.geo)
	if err != nil {
		return err
	}
	maxes, err := scatter.DensityTiles(ctx, st, i, l.Field, scatter.Geometry{Field: p.geo.Field, Stack: p.geo.Stack}, w.Lo, w.Hi, ps.dens, touched, slopes)
	if err != nil {
		return err
	}
	for k, t := range touched {
		if p.partial(t) {
			maxes[k] = p.tileMax(ps.dens, t) // the part's texels, and the rest as it was
		}
		ps.tileMax[t.Index] = maxes[k]
	}
	touched = p.wholeTiles(touched) // a tile's instances come from its whole density
	var mx float32
	for _, m := range ps.tileMax {
		mx = max(mx, m)
	}
	params := scatter.ParamsFor(&st.Populations[i], mx)
	if hold && ps.pool != nil && ps.params.Spacing > 0 {
		params.Spacing = ps.params.Spacing
	}
	if ps.pool == nil || params != ps.params {
		ps.params = params
		ps.pool = scatter.NewPool(params, p.geo.Field, ps.dens, l.Field.Height, 0)
		if params.Spacing > 0 {
			if err := ps.pool.Run(ctx, allTiles); err != nil {
				ps.pool = nil
				return err
			}
		}
	} else if params.Spacing > 0 {
		ps.pool.Density, ps.pool.Height = ps.dens, l.Field.Height
		if err := ps.pool.PlaceTiles(ctx, touched); err != nil {
			return err
		}
	}
	ps.count = 0
	if params.Spacing > 0 {
		ps.count = ps.pool.Total()
	}
	return nil
}

func (p *pipeline) placeGPU(ctx context.Context, st *stack.Stack, i int, ps *popState, touched, allTiles []field.Tile, hold bool) error {
	s := p.s
	l := s.land
	fg := &p.geo.Field
	s.rend.gpuMu.Lock()
	defer s.rend.gpuMu.Unlock()
	tDensity := time.Now()
	if ps.kernel == nil {
		k, err := s.dev.NewScatterKernel()
		if err != nil {
			return err
		}
		ps.kernel = k
		touched = allTiles
	}
	packed, err := stack.PackPopulation(st, i, p.geo.Stack)
	if err != nil {
		return err
	}
	// The density of every tile when the spacing may follow (the kernel reports the maximum of
	// the tiles it ran); only the touched ones while a gesture holds the spacing.
	run := touched
	if !hold {
		run = allTiles
	}
	var mx float32
	// A gesture that holds a spacing needs no maximum: nothing is read back, and the density's
	// dispatches stay queued ahead of the placement that reads them.
	held := hold && ps.params.Spacing > 0
	if p.res.fb != nil {
		if mx, err = ps.kernel.DensityRects(ctx, packed, uint32(fg.WeightsW), uint32(fg.WeightsH), p.full.gpuTarget(), p.res.fb, tileRects(fg, run), !held); err != nil {
			return err
		}
	} else {
		if p.wtiles == nil {
			p.wtiles = &tileCache{}
		}
		chans := st.Channels()
		wts := make([]gpu.WeightsTile, 0, len(run))
		for _, t := range run {
			wt, err := p.wtiles.get(l.Field, chans, t)
			if err != nil {
				return err
			}
			wts = append(wts, wt)
		}
		if mx, err = ps.kernel.Density(ctx, packed, uint32(fg.WeightsW), uint32(fg.WeightsH), p.full.gpuTarget(), wts); err != nil {
			return err
		}
	}
	params := scatter.ParamsFor(&st.Populations[i], mx)
	if held {
		params.Spacing = ps.params.Spacing
	}
	tPlace := time.Now()
	p.addParts(passParts{density: tPlace.Sub(tDensity)})
	defer func() { p.addParts(passParts{place: time.Since(tPlace)}) }()
	job := gpu.PlaceJob{Params: params, Geometry: fg, Height: l.Field.Height, Tiles: touched, HeightUnchanged: ps.heightVer == p.heightVer}
	if !job.HeightUnchanged {
		job.HeightEdited = ps.heightEdited // what the edits since the last placement changed
	}
	var n int
	if params.Spacing == 0 {
		n = 0
	} else if params != ps.params || ps.count == 0 && ps.params.Spacing == 0 {
		job.Tiles = allTiles
		n, err = ps.kernel.Place(ctx, job)
	} else {
		// A gesture's run does not wait for its count: the frame draws by the device's
		// (popViews), the status bar shows the count a run late, the release's run reads it.
		job.CountLate = held
		n, err = ps.kernel.PlaceTiles(ctx, job)
	}
	if err != nil {
		return err
	}
	ps.params, ps.count = params, n
	if params.Spacing != 0 {
		// The kernel's windows hold this height now (a run with nothing to place touched
		// none: the edits since stay to be written).
		ps.heightVer, ps.heightEdited = p.heightVer, image.Rectangle{}
	}
	return nil
}
