package gpu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/stack"
)

// densityHeaderBytes is the density grid buffer's header: max bits, width, height, pad (u32 each).
const densityHeaderBytes = 16

// ScatterKernel is terrain_scatter_density and terrain_scatter_place on one device, with the
// buffers they share: the density grid (written by Density, read by Place) and the instance pool
// the viewport draws from. One kernel serves one population at a time; create one per population
// to keep several pools alive.
type ScatterKernel struct {
	dev *Device

	// terrain_scatter_density
	densPipe  *ComputePipeline
	params    *Buffer
	height    *Buffer
	chans     [4]*Buffer
	grid      *Buffer // header + W×H f32
	dummy     *Texture
	densBG    *wgpu.BindGroup
	densBound [4]bool
	densTgt   *WeightsTarget
	// densBufs are the buffers the density bind group was built on: the kernel's own tile
	// buffers or a resident field's.
	densBufs [5]*wgpu.Buffer
	pwork    []uint32 // the tile's params (PackPopulation output patched by patchTile)
	gridW    uint32
	gridH    uint32
	gridAt   [2]uint32 // the global weight texel of the grid's first value (DensityBand)
	maxDens  float32

	place placeState

	bricks  brickPass // DensityResident's dispatches over a resident field's bricks
	scratch scratch
}

// densityLayout is bind group 0 of terrain_scatter_density.
func densityLayout() []wgpu.BindGroupLayoutEntry {
	texLayout := func(b uint32) wgpu.BindGroupLayoutEntry {
		return wgpu.BindGroupLayoutEntry{Binding: b, Visibility: wgpu.ShaderStageCompute,
			Texture: wgpu.TextureBindingLayout{SampleType: wgpu.TextureSampleTypeUnfilterableFloat, ViewDimension: wgpu.TextureViewDimension2D}}
	}
	return []wgpu.BindGroupLayoutEntry{
		StorageLayout(0, true), StorageLayout(1, true),
		StorageLayout(2, true), StorageLayout(3, true), StorageLayout(4, true), StorageLayout(5, true),
		texLayout(6), texLayout(7), StorageLayout(8, false),
	}
}

// NewScatterKernel compiles both scatter shaders and allocates the buffers they re-use (grown
// only when a grid, a tile or a pool needs more). Create it once per device and population.
func (d *Device) NewScatterKernel() (*ScatterKernel, error) {
	k := &ScatterKernel{dev: d, bricks: brickPass{label: "scatter density brick params"}}
	var err error
	if k.densPipe, err = d.LoadComputePipeline("terrain_scatter_density", "main", densityLayout()); err != nil {
		return nil, err
	}
	mk := func(label string, size uint64, usage wgpu.BufferUsage) *Buffer {
		if err != nil {
			return nil
		}
		var b *Buffer
		b, err = d.NewBuffer(label, size, usage)
		return b
	}
	k.params = mk("scatter density params", stack.RulesOffset+stack.RuleBytes, wgpu.BufferUsageStorage)
	k.height = mk("scatter density height", 4, wgpu.BufferUsageStorage)
	for i := range k.chans {
		k.chans[i] = mk(fmt.Sprintf("scatter density chan%d", i), 4, wgpu.BufferUsageStorage)
	}
	k.grid = mk("scatter density grid", densityHeaderBytes+4, wgpu.BufferUsageStorage)
	if err == nil {
		k.dummy, err = d.NewTexture("scatter no weights", 1, 1, wgpu.TextureFormatRGBA8Unorm, wgpu.TextureUsageTextureBinding)
	}
	if err == nil {
		err = k.place.init(d)
	}
	if err != nil {
		k.Release()
		return nil, err
	}
	return k, nil
}

// Release frees the pipelines, bind groups, buffers and the pool. Safe on nil and twice.
func (k *ScatterKernel) Release() {
	if k == nil {
		return
	}
	if k.densBG != nil {
		k.densBG.Release()
		k.densBG = nil
	}
	k.densTgt = nil
	k.params.Release()
	k.bricks.release()
	k.height.Release()
	for _, c := range k.chans {
		c.Release()
	}
	k.grid.Release()
	k.dummy.Release()
	k.densPipe.Release()
	k.densPipe = nil
	k.place.release()
}

// ErrTooLarge is wrapped by errors that refuse work a storage binding of this device cannot hold
// (a density grid or an instance pool past Limits.MaxStorageBufferBindingSize). The work is
// sound; a device with larger bindings, or the Go reference, can do it.
var ErrTooLarge = errors.New("larger than the device's storage binding")

// densityWorkgroup is terrain_scatter_density's @workgroup_size (8×8) along each axis.
const densityWorkgroup = 8

// Density evaluates a population's density over a w×h weights grid, tile by tile, into the
// kernel's density buffer, and returns the largest density reached (scatter.Spacing of it is the
// site spacing). params is stack.PackPopulation's output (patched per tile on a copy); tiles are
// FieldTile cuts of the height and channels; weights holds the final layer weights a `layer` rule
// reads (nil when no rule reads one). Density resets the maximum, so a run over some tiles only
// reports the maximum of those tiles; run every tile when the spacing is to follow.
func (k *ScatterKernel) Density(ctx context.Context, params []uint32, w, h uint32, weights *WeightsTarget, tiles []WeightsTile) (float32, error) {
	return k.DensityBand(ctx, params, [2]uint32{}, w, h, weights, len(tiles), func(i int) (WeightsTile, error) { return tiles[i], nil })
}

// DensityBand is Density over the w×h band of the weights grid whose first texel is the global
// texel origin: the density buffer holds that band (Place needs a whole grid: origin 0), weights
// (when given) must be a target of the same band, and the n tiles must lie inside it. tile(i)
// gives tile i; it may re-use its blocks from call to call, since each tile is uploaded before
// the next is asked for (gpu.TileCutter). A bake too large for one binding evaluates the density
// band by band, reading each band back before the next.
func (k *ScatterKernel) DensityBand(ctx context.Context, params []uint32, origin [2]uint32, w, h uint32, weights *WeightsTarget, n int, tile func(i int) (WeightsTile, error)) (float32, error) {
	if k == nil || k.densPipe == nil {
		return 0, fmt.Errorf("gpu: scatter density: nil or released kernel")
	}
	if err := checkDensityParams(params, weights); err != nil {
		return 0, err
	}
	if weights != nil && (weights.W != w || weights.H != h || weights.Origin != origin) {
		return 0, fmt.Errorf("gpu: scatter density: weights are %dx%d at %v, the grid is %dx%d at %v", weights.W, weights.H, weights.Origin, w, h, origin)
	}
	if err := k.resetGrid(w, h); err != nil {
		return 0, err
	}
	k.gridAt = origin
	for i := range n {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("gpu: scatter density: %w", err)
		}
		t, err := tile(i)
		if err != nil {
			return 0, err
		}
		if err := k.densityTile(params, weights, t); err != nil {
			return 0, err
		}
	}
	return k.readMax()
}

// readMax reads the maximum the density run left in the grid's header.
func (k *ScatterKernel) readMax() (float32, error) {
	b, err := k.dev.ReadBuffer(k.grid, 0, 4)
	if err != nil {
		return 0, err
	}
	k.maxDens = math.Float32frombits(binary.LittleEndian.Uint32(b))
	return k.maxDens, nil
}

// MaxDensity is the largest density the last Density run reached.
func (k *ScatterKernel) MaxDensity() float32 { return k.maxDens }

// DensityBuffer is the density grid buffer: a 16-byte header (max density bits, width, height, 0)
// then width×height f32, row 0 at the field's minimum Z.
func (k *ScatterKernel) DensityBuffer() *Buffer { return k.grid }

// ReadDensity reads the density grid back (width×height values).
func (k *ScatterKernel) ReadDensity() ([]float32, error) {
	if k == nil || k.grid == nil {
		return nil, fmt.Errorf("gpu: scatter read density: nil or released kernel")
	}
	out := make([]float32, uint64(k.gridW)*uint64(k.gridH))
	return out, k.ReadDensityInto(out, int(k.gridW))
}

// ReadDensityInto reads the density grid back into dst, grid row y at dst[y·stride:] (stride in
// values): a band's rows land in their place in the whole grid.
func (k *ScatterKernel) ReadDensityInto(dst []float32, stride int) error {
	if k == nil || k.grid == nil {
		return fmt.Errorf("gpu: scatter read density: nil or released kernel")
	}
	if len(dst) == 0 {
		return fmt.Errorf("gpu: scatter read density: no destination")
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst))
	if err := k.dev.ReadBufferRows(k.grid, densityHeaderBytes, uint64(k.gridH), 4*uint64(k.gridW), b, 4*uint64(stride)); err != nil {
		return err
	}
	if !littleEndian { // the buffer holds little-endian f32
		for y := 0; y < int(k.gridH); y++ {
			for x := y * stride; x < y*stride+int(k.gridW); x++ {
				dst[x] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*x:]))
			}
		}
	}
	return nil
}

// UploadDensity replaces the density grid with a w×h grid computed elsewhere (a stored density
// child, or the Go reference's grid), for Place to read; its maximum becomes MaxDensity.
func (k *ScatterKernel) UploadDensity(w, h uint32, values []float32) error {
	if k == nil || k.grid == nil {
		return fmt.Errorf("gpu: scatter upload density: nil or released kernel")
	}
	if uint64(len(values)) != uint64(w)*uint64(h) || w == 0 || h == 0 {
		return fmt.Errorf("gpu: scatter upload density: %d values for a %dx%d grid", len(values), w, h)
	}
	var mx float32
	for _, v := range values {
		mx = max(mx, v)
	}
	b := k.scratch.grow(densityHeaderBytes + 4*len(values))
	binary.LittleEndian.PutUint32(b[0:], math.Float32bits(mx))
	binary.LittleEndian.PutUint32(b[4:], w)
	binary.LittleEndian.PutUint32(b[8:], h)
	binary.LittleEndian.PutUint32(b[12:], 0)
	for i, v := range values {
		binary.LittleEndian.PutUint32(b[densityHeaderBytes+4*i:], math.Float32bits(v))
	}
	re, err := k.grid.Upload(b)
	if err != nil {
		return err
	}
	k.dropDensityBinding(re)
	k.gridW, k.gridH, k.gridAt, k.maxDens = w, h, [2]uint32{}, mx
	return nil
}

func (k *ScatterKernel) dropDensityBinding(recreated bool) {
	if recreated && k.densBG != nil {
		k.densBG.Release()
		k.densBG = nil
	}
}

// resetGrid sizes the density buffer for a w×h grid and writes its header (max 0).
func (k *ScatterKernel) resetGrid(w, h uint32) error {
	if w == 0 || h == 0 {
		return fmt.Errorf("gpu: scatter density: empty %dx%d grid", w, h)
	}
	size := densityHeaderBytes + 4*uint64(w)*uint64(h)
	if lim := k.dev.Limits.MaxStorageBufferBindingSize; lim > 0 && size > lim {
		return fmt.Errorf("gpu: scatter density: a %dx%d grid needs %d bytes, the device binds at most %d: %w", w, h, size, lim, ErrTooLarge)
	}
	re, err := k.grid.Ensure(size)
	if err != nil {
		return err
	}
	k.dropDensityBinding(re)
	hdr := make([]byte, densityHeaderBytes)
	binary.LittleEndian.PutUint32(hdr[4:], w)
	binary.LittleEndian.PutUint32(hdr[8:], h)
	k.gridW, k.gridH, k.maxDens = w, h, 0
	return k.grid.Write(0, hdr)
}

func (k *ScatterKernel) densityTile(params []uint32, weights *WeightsTarget, t WeightsTile) error {
	if err := checkTileBuffers(&t); err != nil {
		return err
	}
	if t.Origin[0] < k.gridAt[0] || t.Origin[1] < k.gridAt[1] ||
		uint64(t.Origin[0])+uint64(t.Size[0]) > uint64(k.gridAt[0])+uint64(k.gridW) ||
		uint64(t.Origin[1])+uint64(t.Size[1]) > uint64(k.gridAt[1])+uint64(k.gridH) {
		return fmt.Errorf("gpu: scatter density: tile %v+%v outside the %dx%d grid at %v", t.Origin, t.Size, k.gridW, k.gridH, k.gridAt)
	}
	if t.Size[0] == 0 || t.Size[1] == 0 {
		return nil
	}
	p := patchTile(&k.pwork, params, &t, k.gridAt)
	rebind := k.densBG == nil || weights != k.densTgt || k.densBufs[0] != k.height.Buf
	re, err := k.params.Upload(k.scratch.words(p))
	if err != nil {
		return err
	}
	rebind = rebind || re
	if re, err = k.height.Upload(k.scratch.floats(t.Height)); err != nil {
		return err
	}
	rebind = rebind || re
	for i, c := range t.Chans {
		if c == nil {
			rebind = rebind || k.densBound[i]
			continue
		}
		if re, err = k.chans[i].Upload(k.scratch.floats(c)); err != nil {
			return err
		}
		rebind = rebind || re || !k.densBound[i]
	}
	if rebind {
		if err := k.bindDensity(weights, t.Chans); err != nil {
			return err
		}
	}
	gx := (t.Size[0] + densityWorkgroup - 1) / densityWorkgroup
	gy := (t.Size[1] + densityWorkgroup - 1) / densityWorkgroup
	return k.dev.Dispatch("terrain_scatter_density", k.densPipe, k.densBG, gx, gy, 1)
}

func (k *ScatterKernel) bindDensity(weights *WeightsTarget, chans [4][]float32) error {
	var bufs [4]*Buffer
	for i, c := range chans {
		if c != nil {
			bufs[i] = k.chans[i]
		}
	}
	return k.bindDensityBuffers(weights, k.height, bufs)
}

// bindDensityBuffers builds the density bind group on height and the channel buffers (nil: an
// unbound slot).
func (k *ScatterKernel) bindDensityBuffers(weights *WeightsTarget, height *Buffer, chans [4]*Buffer) error {
	k.dropDensityBinding(true)
	entries := fieldEntries(k.params, height, chans, &k.densBufs, &k.densBound)
	lo, hi := k.dummy, k.dummy
	if weights != nil {
		lo, hi = weights.Lo, weights.Hi
	}
	entries = append(entries, TextureEntry(6, lo), TextureEntry(7, hi), BufferEntry(8, k.grid))
	bg, err := k.densPipe.BindGroup("terrain_scatter_density group0", entries...)
	if err != nil {
		k.densTgt = nil
		return err
	}
	k.densBG, k.densTgt = bg, weights
	return nil
}

// DensityResident is Density over the weights texels of rect of a w×h grid, reading the field
// where fb holds it (no uploads but the bricks not there yet): one dispatch per brick. Like Density it resets the maximum, so it
// reports the maximum over rect; the density of texels outside rect stays as the last run left
// it (the editor re-runs the tiles an edit touched, and the whole grid when the spacing follows).
func (k *ScatterKernel) DensityResident(ctx context.Context, params []uint32, w, h uint32, weights *WeightsTarget, fb *FieldBuffers, rect image.Rectangle) (float32, error) {
	return k.DensityRects(ctx, params, w, h, weights, fb, []image.Rectangle{rect}, true)
}

// DensityRects is DensityResident over several rects of the grid, the maximum reset once and
// reported over all of them. With readMax false nothing is read back and it returns 0: the
// density's dispatches stay in the queue ahead of the placement that reads them (the editor
// re-placing a dab's tiles at a spacing it holds needs no maximum, and no wait for one).
func (k *ScatterKernel) DensityRects(ctx context.Context, params []uint32, w, h uint32, weights *WeightsTarget, fb *FieldBuffers, rects []image.Rectangle, readMax bool) (float32, error) {
	if k == nil || k.densPipe == nil {
		return 0, fmt.Errorf("gpu: scatter density: nil or released kernel")
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("gpu: scatter density: %w", err)
	}
	if err := checkDensityParams(params, weights); err != nil {
		return 0, err
	}
	if weights != nil && (weights.W != w || weights.H != h || weights.Origin != [2]uint32{}) {
		return 0, fmt.Errorf("gpu: scatter density: weights are %dx%d at %v, the grid is %dx%d", weights.W, weights.H, weights.Origin, w, h)
	}
	for _, rect := range rects {
		if !rect.In(image.Rect(0, 0, int(w), int(h))) {
			return 0, fmt.Errorf("gpu: scatter density: rect %v outside the %dx%d grid", rect, w, h)
		}
	}
	if err := k.resetGrid(w, h); err != nil {
		return 0, err
	}
	k.gridAt = [2]uint32{}
	lo, hi := k.dummy, k.dummy
	if weights != nil {
		lo, hi = weights.Lo, weights.Hi
	}
	bp := &k.bricks
	for _, rect := range rects {
		if rect.Empty() {
			continue
		}
		// One submission a rect: a brick's params have one slot in the arena (brickPass), and
		// two rects may cross the same brick.
		if err := bp.begin(k.dev, fb.bricksLen(), len(params)); err != nil {
			return 0, err
		}
		err := fb.each(1, rect, func(i int, height *Buffer, chans [4]*Buffer, t WeightsTile) error {
			pe, err := bp.params(i, patchTile(&k.pwork, params, &t, k.gridAt))
			if err != nil {
				return err
			}
			key := bindKey{pipe: k.densPipe, params: pe.Buffer, off: pe.Offset, size: pe.Size, views: [2]*wgpu.TextureView{lo.View, hi.View}, extra: k.grid.Buf}
			bg, err := fb.bind(i, key, "terrain_scatter_density brick group0", func(height *Buffer, chans [4]*Buffer) []wgpu.BindGroupEntry {
				return append(brickEntries(pe, height, chans), TextureEntry(6, lo), TextureEntry(7, hi), BufferEntry(8, k.grid))
			})
			if err != nil {
				return err
			}
			bp.add(bg, (t.Size[0]+densityWorkgroup-1)/densityWorkgroup, (t.Size[1]+densityWorkgroup-1)/densityWorkgroup, 1)
			return nil
		}, func() error { return bp.submit(k.dev, k.densPipe) })
		if err != nil {
			return 0, err
		}
	}
	if !readMax {
		k.maxDens = 0
		return 0, nil
	}
	return k.readMax()
}

// checkDensityParams refuses params that are not PackPopulation output, and a population with a
// `layer` rule given no weights to read.
func checkDensityParams(params []uint32, weights *WeightsTarget) error {
	if len(params) < stack.RulesWord || (len(params)-stack.RulesWord)%(stack.RuleLanes*stack.LaneWords) != 0 {
		return fmt.Errorf("gpu: scatter density: params of %d words are not stack.PackPopulation output", len(params))
	}
	pl, _ := stack.UnpackLayer(params, 0)
	for r := uint32(0); r < pl.RuleCount; r++ {
		pr, ok := stack.UnpackRule(params, int(pl.RuleStart+r))
		if !ok {
			return fmt.Errorf("gpu: scatter density: params name rule %d, which they do not hold", pl.RuleStart+r)
		}
		if pr.Input == 6 && weights == nil {
			return fmt.Errorf("gpu: scatter density: rule %d reads layer %d and no weights were given", r, pr.Slot)
		}
	}
	return nil
}

func checkTileBuffers(t *WeightsTile) error {
	n := uint64(t.BufSize[0]) * uint64(t.BufSize[1])
	if n == 0 || uint64(len(t.Height)) != n {
		return fmt.Errorf("gpu: scatter density: height buffer has %d samples for %v", len(t.Height), t.BufSize)
	}
	for i, c := range t.Chans {
		if c != nil && uint64(len(c)) != n {
			return fmt.Errorf("gpu: scatter density: chan%d buffer has %d samples, want %d", i, len(c), n)
		}
	}
	return nil
}
