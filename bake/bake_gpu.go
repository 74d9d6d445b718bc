package bake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// Stage names a bake reports to its progress.Func, one bar each on the command line.
const (
	StageDevice   = "gpu start" // opening the device and compiling the kernels (0/1, 1/1)
	StageEvaluate = "evaluate"  // weights (and, on the GPU, density) tiles run
	StageReadBack = "read back" // MiB copied from the GPU into the landscape
	StageScatter  = "scatter"   // populations placed (the Go reference: density too)
)

// GPUTileSize is the tile side a GPU bake uses when Options.TileSize is 0: every tile is a
// dispatch (and a density dispatch per population) with its own submission, ~0.1 ms each on the
// H200, so a 16384² bake in tiles of 256 spent half a second submitting 8192 of them. Any tiling
// gives the same bytes; the Go reference keeps field.DefaultTileSize, its unit of parallel work.
const GPUTileSize = 1024

// Bake evaluates l.Stack over l.Field on the GPU into l.Weights and l.Scatter (l.Geometry must be
// set, as Evaluate does). The weights grid is cut into bands of whole tiles (planBands: no texture
// or buffer past the device's limits or past opt.BandBytes); band by band the tiles run into a
// band-sized target (the whole-field Target when one band is the whole grid), every population's
// density runs over the same band reading it, and both are read straight into their place in
// l.Weights and the density grids. So any grid the host can
// hold is baked with bounded device memory, on the H200 and on lavapipe's 128 MiB bindings alike.
// Then each population is placed: on the GPU from the density buffer when the whole grid was one
// band and it and the height fit a binding, else with the Go reference from the density the GPU
// computed — the same instances, bit for bit (placement from one density is exact between the
// twins, gpu.TestScatterPlaceMatchesReference).
func (g *GPU) Bake(ctx context.Context, l *landscape.Landscape, opt Options) error {
	return g.bake(ctx, l, opt, true, nil)
}

// Weights evaluates s over f on the GPU band by band, as Bake does, and returns the weights.
func (g *GPU) Weights(ctx context.Context, s *stack.Stack, f *field.Field, opt Options) (*landscape.Weights, error) {
	geo, err := landscape.NewGeometry(s, f, opt.Resolution)
	if err != nil {
		return nil, err
	}
	l := &landscape.Landscape{Stack: s, Field: f, Geometry: geo}
	if err := g.bake(ctx, l, opt, false, nil); err != nil {
		return nil, err
	}
	return l.Weights, nil
}

// bake is Bake (withScatter) or Weights, timing its phases into tm (may be nil).
func (g *GPU) bake(ctx context.Context, l *landscape.Landscape, opt Options, withScatter bool, tm *Timings) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.weights == nil {
		return errors.New("bake: GPU evaluator is released")
	}
	r, err := g.newBakeRun(l, opt, withScatter, tm)
	if err != nil {
		return err
	}
	defer r.reader.Release()
	t0 := time.Now()
	for _, b := range r.bands {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("bake: %w", err)
		}
		if err := r.band(ctx, b); err != nil {
			return err
		}
	}
	if err := r.landAll(); err != nil {
		return err
	}
	r.timeBands(time.Since(t0))
	l.Weights = r.w
	l.Scatter = l.Scatter[:0]
	return r.place(ctx)
}

// bakeRun is one GPU bake in progress: the packed stack and populations, the bands, and the
// host grids the bands are read into.
type bakeRun struct {
	g                    *GPU
	l                    *landscape.Landscape
	tm                   *Timings
	report               func(stage string, done, total int)
	params               []uint32
	popParams            [][]uint32
	chans                []string
	tiles                []field.Tile
	bands                []band
	w                    *landscape.Weights
	readHi               bool          // more than four layers: layers 4–7 are read back
	dens                 []*field.Grid // per population, the weights grid
	maxD                 []float32     // per population, the largest density reached
	evaluated, evalTotal int           // tiles run (weights and densities)
	readTotal            int
	// reader reads the bands back with several copies in flight: band k's bytes land while the
	// GPU evaluates band k+1 (readerSlots).
	reader *gpu.Reader
}

// readerSlots is how many read backs a bake keeps in flight: a band's requests (its weights, and
// each population's density) twice over, so that one band's bytes are copied out while the next
// band's kernels and copies run. A CPU device (lavapipe) evaluates on the cores that would copy,
// and its staging buffers are this process's memory: one band's requests there.
func readerSlots(perBand int, t wgpu.AdapterType) int {
	if t == wgpu.AdapterTypeCPU {
		return perBand
	}
	return 2 * perBand
}

func (g *GPU) newBakeRun(l *landscape.Landscape, opt Options, withScatter bool, tm *Timings) (*bakeRun, error) {
	s, geo := l.Stack, &l.Geometry
	r := &bakeRun{g: g, l: l, tm: tm, report: opt.progress(), chans: s.Channels(), readHi: len(s.Layers) > 4}
	var err error
	if r.params, err = stack.Pack(s, geo.Stack); err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	if _, err := channelGrids(s, l.Field); err != nil {
		return nil, err
	}
	pops := 0
	if withScatter {
		pops = len(s.Populations)
	}
	W, H := geo.Field.WeightsW, geo.Field.WeightsH
	tileSize := opt.TileSize
	if tileSize <= 0 {
		tileSize = GPUTileSize
	}
	r.tiles = geo.Tiles(tileSize)
	lim := limitsOf(g.Dev.Limits, opt.BandBytes)
	if r.bands, err = planBands(W, H, tileSize, r.tiles, lim, pops > 0); err != nil {
		return nil, err
	}
	tm.Note("%d band(s) of up to %d×%d texels (tiles of %d); device limits: buffer %d MiB, storage binding %d MiB, texture %d",
		len(r.bands), r.bands[0].W, r.bands[0].H, tileSize, lim.maxBuffer>>20, lim.maxBinding>>20, lim.maxTexture)
	r.popParams = make([][]uint32, pops)
	for p := range r.popParams {
		if r.popParams[p], err = stack.PackPopulation(s, p, geo.Stack); err != nil {
			return nil, fmt.Errorf("bake: population %q: %w", s.Populations[p].Name, err)
		}
	}
	if pops > 0 {
		if _, err := g.scatterKernel(); err != nil {
			return nil, err
		}
	}
	// Layers 4–7 exist only in stacks of more than four layers: otherwise Hi is all zero by
	// construction and not read back, so its pages are never touched (1 GiB at 16384²).
	// On disk with the field's planes when they would pass half the memory budget (checkMemory
	// counted them so).
	if r.w, err = landscape.NewWeightsFor(l.Field, W, H); err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	r.dens = make([]*field.Grid, pops)
	r.maxD = make([]float32, pops)
	for p := range r.dens {
		// On disk with the height (checkMemory counted them so).
		if r.dens[p], err = field.NewPlaneLike(W, H, l.Field.Height); err != nil {
			return nil, fmt.Errorf("bake: %w", err)
		}
	}
	perTexel := 4 * (1 + btoi(r.readHi) + pops) // bytes read back: Lo, Hi, each density
	r.evalTotal = len(r.tiles) * (1 + pops)
	r.readTotal = mib(int64(W) * int64(H) * int64(perTexel))
	r.reader = g.Dev.NewReader("bake read back", readerSlots(1+btoi(r.readHi)+pops, g.Dev.Info.Type))
	r.report(StageEvaluate, 0, r.evalTotal)
	r.report(StageReadBack, 0, r.readTotal)
	return r, nil
}

func (r *bakeRun) tick() {
	r.evaluated++
	r.report(StageEvaluate, r.evaluated, r.evalTotal)
}

// readBack reports the bytes landed so far.
func (r *bakeRun) readBack() {
	r.report(StageReadBack, mib(r.reader.Stats().Bytes), r.readTotal)
}

// band evaluates band b — its weights, then each population's density reading them — and asks
// for each to be read straight into its place in the host grids. The copies are queued behind the
// kernels that fill them and land while the next bands run (r.reader); the next population (or
// band) may overwrite the density buffer and the band target at once, since the queue keeps each
// copy before the work queued after it.
func (r *bakeRun) band(ctx context.Context, b band) error {
	g, l, W := r.g, r.l, r.w.W
	target, err := g.bandTarget(b, W, r.w.H)
	if err != nil {
		return err
	}
	if err := g.runTiles(ctx, target, r.params, l.Field, r.chans, b.Tiles, func(int) { r.tick() }); err != nil {
		return err
	}
	// The band's weights are finished before its densities read them (same queue).
	for p := range r.dens {
		m, err := g.densityBand(ctx, r.popParams[p], b, target, l.Field, r.chans, r.tick)
		if err != nil {
			return fmt.Errorf("bake: population %q: %w", l.Stack.Populations[p].Name, err)
		}
		r.tick() // the band's last tile
		r.maxD[p] = max(r.maxD[p], m)
		if err := r.reader.DensityInto(g.scatter, r.dens[p].Data[b.J0*W+b.I0:], W); err != nil {
			return fmt.Errorf("bake: population %q: %w", l.Stack.Populations[p].Name, err)
		}
		r.readBack()
	}
	off := (b.J0*W + b.I0) * 4
	if err := r.reader.TextureInto(target.Lo, r.w.Lo[off:], 4*W); err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	if r.readHi {
		if err := r.reader.TextureInto(target.Hi, r.w.Hi[off:], 4*W); err != nil {
			return fmt.Errorf("bake: %w", err)
		}
	}
	r.readBack()
	return nil
}

// landAll waits for the last bands' bytes.
func (r *bakeRun) landAll() error {
	if err := r.reader.Flush(); err != nil {
		return fmt.Errorf("bake: %w", err)
	}
	r.readBack()
	return nil
}

// timeBands splits the bands' wall time d: what the loop spent blocked on the read back (waiting
// for copies and the kernels queued before them, or for bytes still being copied out) is "read
// back", the rest — queueing kernels and uploads, and the waits for each density's maximum —
// "evaluate"; the note gives the read back's throughput over the whole span in which bytes were in
// flight, and the copying out, which runs beside the loop.
func (r *bakeRun) timeBands(d time.Duration) {
	st := r.reader.Stats()
	rb := st.Waited
	r.tm.Add(StageEvaluate, d-rb)
	r.tm.Add(StageReadBack, rb)
	if st.Bytes > 0 && st.Span > 0 {
		r.tm.Note("read back: %d MiB in %d copies, %.1f ms from the first copy to the last byte landed (%.2f GB/s, the bands' kernels included); waited %.1f ms; copied out %.1f ms beside the loop (%.2f GB/s)",
			st.Bytes>>20, st.Requests, ms(st.Span), float64(st.Bytes)/st.Span.Seconds()/1e9, ms(st.Waited), ms(st.Copied), float64(st.Bytes)/max(st.Copied, time.Microsecond).Seconds()/1e9)
	}
}

// place places every population: on the GPU from the density buffer when the whole grid was one
// band (the place kernel reads the height in windows of gpu.DefaultPlaceWindow), else (or when
// the pool passes the binding) with the Go reference from the density the GPU computed — the
// same instances.
func (r *bakeRun) place(ctx context.Context) error {
	pops := len(r.dens)
	if pops == 0 {
		return nil
	}
	g, l := r.g, r.l
	r.report(StageScatter, 0, pops)
	defer r.tm.Since(StageScatter, time.Now())
	onGPU := len(r.bands) == 1
	if onGPU {
		r.tm.Note("placement on the GPU")
	} else {
		r.tm.Note("placement with the Go reference, from the GPU's density")
	}
	for p := range pops {
		pop := &l.Stack.Populations[p]
		out := landscape.Population{Name: pop.Name, Mesh: pop.Mesh, Seed: pop.Seed, Scale: pop.Scale, Density: r.dens[p]}
		var err error
		if onGPU {
			out, err = g.placeGPU(ctx, l, p, r.maxD[p], p < pops-1, r.tiles, out)
		}
		if !onGPU || errors.Is(err, gpu.ErrTooLarge) {
			out, err = placeReference(ctx, pop, r.maxD[p], &l.Geometry.Field, r.dens[p], l.Field.Height, r.tiles)
		}
		if err != nil {
			return fmt.Errorf("bake: population %q: %w", pop.Name, err)
		}
		l.Scatter = append(l.Scatter, out)
		r.report(StageScatter, p+1, pops)
	}
	return nil
}

// densityBand runs population params over band b's tiles into the scatter kernel's density
// buffer, reading the band target's weights, and returns the largest density reached there.
func (g *GPU) densityBand(ctx context.Context, params []uint32, b band, target *gpu.WeightsTarget, f *field.Field, chans []string, done func()) (float32, error) {
	origin := [2]uint32{uint32(b.I0), uint32(b.J0)}
	return g.scatter.DensityBand(ctx, params, origin, uint32(b.W), uint32(b.H), target, len(b.Tiles), func(i int) (gpu.WeightsTile, error) {
		if i > 0 {
			done()
		}
		return g.cut.Cut(f, chans, b.Tiles[i])
	})
}

// placeGPU places population p from the whole-grid density in the scatter kernel: the last
// population's is still there from its density run; an earlier one's (upload) is put back first.
func (g *GPU) placeGPU(ctx context.Context, l *landscape.Landscape, p int, maxD float32, upload bool, tiles []field.Tile, out landscape.Population) (landscape.Population, error) {
	sp := scatter.ParamsFor(&l.Stack.Populations[p], maxD)
	out.Spacing = sp.Spacing
	if sp.Spacing == 0 {
		return out, nil
	}
	if upload {
		if err := g.scatter.UploadDensity(uint32(out.Density.W), uint32(out.Density.H), out.Density.Data); err != nil {
			return out, err
		}
	}
	n, err := g.scatter.Place(ctx, gpu.PlaceJob{Params: sp, Geometry: &l.Geometry.Field, Height: l.Field.Height, Tiles: tiles})
	if err != nil {
		return out, err
	}
	if out.Matrices, err = g.scatter.ReadMatrices(); err != nil {
		return out, err
	}
	out.Count = n
	return out, nil
}

// bandTarget is the target band b of a W×H grid runs into. A band that is the whole grid runs
// into the whole-field target RunTiles fills, so after a bake that fits the device Target holds
// its weights, as the editor's viewport expects; any other band into the band target, moved to
// the band's corner.
func (g *GPU) bandTarget(b band, W, H int) (*gpu.WeightsTarget, error) {
	if b.I0 == 0 && b.J0 == 0 && b.W == W && b.H == H {
		if err := g.ensureTarget(W, H); err != nil {
			return nil, err
		}
		return g.target, nil
	}
	if err := g.ensureSized(&g.band, b.W, b.H); err != nil {
		return nil, err
	}
	g.band.Origin = [2]uint32{uint32(b.I0), uint32(b.J0)}
	return g.band, nil
}

// mib is n bytes in MiB, rounded up, for progress in units a bar can show.
func mib(n int64) int { return int((n + 1<<20 - 1) >> 20) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
