package gpu

import (
	"context"
	"fmt"
	"image"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
	"strata/stack"
)

// weightsGroup is terrain_layer_weights' @workgroup_size (16×16) along each axis.
const weightsGroup = 16

// WeightsTarget is the pair of RGBA8 textures of a weights grid: layers 0–3 in Lo, 4–7 in Hi. The
// kernel writes a tile's texels into it at their global positions (minus Origin), so one target
// holds the result of any tiling. Both are storage + sampled textures, so the viewport samples them.
type WeightsTarget struct {
	Lo, Hi *Texture
	W, H   uint32
	// Origin is the global weight texel the target's texel (0, 0) stands for: (0, 0) for a target
	// of the whole grid; a bake too large for one texture moves a band-sized target from band to
	// band by setting it between runs. Global texel g is written at g − Origin modulo 2^32, so an
	// Origin "below" zero places a block anywhere in a larger texture (the viewport's atlas slot of
	// a page). Tiles must land inside the target's W×H texels.
	Origin [2]uint32

	dev *Device
}

// NewWeightsTarget allocates the two w×h rgba8unorm textures.
func (d *Device) NewWeightsTarget(w, h uint32) (*WeightsTarget, error) {
	usage := wgpu.TextureUsageStorageBinding | wgpu.TextureUsageTextureBinding
	lo, err := d.NewTexture("weightsLo", w, h, wgpu.TextureFormatRGBA8Unorm, usage)
	if err != nil {
		return nil, err
	}
	hi, err := d.NewTexture("weightsHi", w, h, wgpu.TextureFormatRGBA8Unorm, usage)
	if err != nil {
		lo.Release()
		return nil, err
	}
	return &WeightsTarget{Lo: lo, Hi: hi, W: w, H: h, dev: d}, nil
}

// ReadWeights reads both textures back: lo holds layers 0–3 and hi layers 4–7 of each texel, four
// bytes per texel, rows tightly packed, row 0 at the field's minimum Z.
func (t *WeightsTarget) ReadWeights() (lo, hi []byte, err error) {
	if t == nil || t.Lo == nil {
		return nil, nil, fmt.Errorf("gpu: read weights: nil or released target")
	}
	if lo, err = t.dev.ReadTexture(t.Lo); err != nil {
		return nil, nil, err
	}
	if hi, err = t.dev.ReadTexture(t.Hi); err != nil {
		return nil, nil, err
	}
	return lo, hi, nil
}

// Release frees both textures. Safe on nil and twice.
func (t *WeightsTarget) Release() {
	if t == nil {
		return
	}
	t.Lo.Release()
	t.Hi.Release()
}

// WeightsTile is one dispatch: the weights texels it writes and the apron-inclusive block of the
// height grid (and of each channel, same block) it reads. field.Tile gives the numbers.
type WeightsTile struct {
	Origin, Size       [2]uint32 // weights texels: [Origin, Origin+Size)
	BufOrigin, BufSize [2]uint32 // height texels of the buffers below
	Height             []float32 // BufSize[0]·BufSize[1] samples, row-major
	// Chans holds chan0..chan3 in the same block layout; a nil slot is bound to Height and never
	// sampled (stack.Channels gives the slot order).
	Chans [4][]float32
}

// WeightsKernel is terrain_layer_weights on one device: its two pipelines (the plain kernel, and
// terrain_layer_weights_noise with the lattice cache for stacks whose layers draw noise; both write
// the same bytes, Run picks by the params) and the params, height and channel buffers it re-uses
// from tile to tile (grown only when a tile needs more).
type WeightsKernel struct {
	dev    *Device
	pipes  [2]*ComputePipeline // [variantPlain], [variantNoise]; compiled on first use
	force  int                 // tests: 0 picks by the params, else variant+1
	params *Buffer
	height *Buffer
	chans  [4]*Buffer

	bg       *wgpu.BindGroup
	bgPipe   *ComputePipeline
	bgTarget [2]*wgpu.TextureView // the target's planes the bind group writes (an atlas slot's target is a new value each page)
	bgChans  [4]bool              // which slots the bind group binds to their own buffer
	// bgBufs are the buffers the bind group was built on: the kernel's own tile buffers or a
	// resident field's (a recreated one makes it stale).
	bgBufs [5]*wgpu.Buffer

	bricks     brickPass // RunResident's dispatches over a resident field's bricks
	scratch    scratch
	cut        TileCutter // RunField's blocks, cut from the field
	pwork      []uint32   // the tile's params (stack.Pack output patched by PackTile)
	onGPU      []uint32   // the params words in the params buffer (empty: unknown)
	lastGroups [2]uint32  // workgroups of the last Run, for Repeat
}

// The two pipelines of terrain_layer_weights, by shader file.
const (
	variantPlain = iota // terrain_layer_weights: no layer above 0 draws noise
	variantNoise        // terrain_layer_weights_noise: the per-workgroup lattice cache
)

var weightsShaders = [2]string{"terrain_layer_weights", "terrain_layer_weights_noise"}

// NewWeightsKernel compiles terrain_layer_weights.wgsl (the noise variant is compiled the first
// time a stack that draws noise runs). Create it once per device.
func (d *Device) NewWeightsKernel() (*WeightsKernel, error) {
	k := &WeightsKernel{dev: d, bricks: brickPass{label: "weights brick params"}}
	if _, err := k.pipeline(variantPlain); err != nil {
		return nil, err
	}
	var err error
	mk := func(label string, size uint64) *Buffer {
		if err != nil {
			return nil
		}
		var b *Buffer
		b, err = d.NewBuffer(label, size, wgpu.BufferUsageStorage)
		return b
	}
	k.params = mk("weights params", stack.RulesOffset+stack.RuleBytes)
	k.height = mk("weights height", 4)
	for i := range k.chans {
		k.chans[i] = mk(fmt.Sprintf("weights chan%d", i), 4)
	}
	if err != nil {
		k.Release()
		return nil, err
	}
	return k, nil
}

// Release frees the kernel's bind group, buffers and pipeline. Safe on nil and twice.
func (k *WeightsKernel) Release() {
	if k == nil {
		return
	}
	if k.bg != nil {
		k.bg.Release()
		k.bg = nil
	}
	k.params.Release()
	k.bricks.release()
	k.height.Release()
	for _, c := range k.chans {
		c.Release()
	}
	for i, p := range k.pipes {
		p.Release()
		k.pipes[i] = nil
	}
	k.bgPipe = nil
}

// pipeline returns the pipeline of variant v, compiling it on first use.
func (k *WeightsKernel) pipeline(v int) (*ComputePipeline, error) {
	if k.pipes[v] != nil {
		return k.pipes[v], nil
	}
	p, err := k.dev.LoadComputePipeline(weightsShaders[v], "main", weightsLayout())
	if err != nil {
		return nil, err
	}
	k.pipes[v] = p
	return p, nil
}

// weightsLayout is bind group 0 of both weights variants.
func weightsLayout() []wgpu.BindGroupLayoutEntry {
	return []wgpu.BindGroupLayoutEntry{
		StorageLayout(0, true), StorageLayout(1, true),
		StorageLayout(2, true), StorageLayout(3, true), StorageLayout(4, true), StorageLayout(5, true),
		StorageTextureLayout(6, wgpu.TextureFormatRGBA8Unorm), StorageTextureLayout(7, wgpu.TextureFormatRGBA8Unorm),
	}
}

// variantFor is the pipeline a tile of params runs: the lattice cache only for stacks that draw
// noise (for the others it is pure cost: 0.396 → 0.470 ms for the sample at 4096² on the H200).
func (k *WeightsKernel) variantFor(params []uint32) int {
	if k.force > 0 {
		return k.force - 1
	}
	if stack.DrawsNoise(params) {
		return variantNoise
	}
	return variantPlain
}

// Run evaluates one tile into target. params is stack.Pack's output for the whole stack (not
// modified: head lanes 2–3 are patched with stack.PackTile on a copy). The upload and the dispatch
// are queued; ReadWeights (or Device.Wait) waits for them.
func (k *WeightsKernel) Run(ctx context.Context, target *WeightsTarget, params []uint32, tile WeightsTile) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("gpu: weights: %w", err)
	}
	if k == nil || k.pipes[variantPlain] == nil {
		return fmt.Errorf("gpu: weights: nil or released kernel")
	}
	if target == nil || target.Lo == nil {
		return fmt.Errorf("gpu: weights: nil or released target")
	}
	if err := checkWeightsTile(target, params, &tile, true); err != nil {
		return err
	}
	if tile.Size[0] == 0 || tile.Size[1] == 0 {
		return nil
	}
	n := int(tile.BufSize[0]) * int(tile.BufSize[1])
	var bound [4]bool
	for i := range bound {
		bound[i] = tile.Chans[i] != nil
	}
	// plane returns block i (0 height, 1..4 chan0..chan3) as bytes for the queue.
	plane := func(i int) []byte {
		if i == 0 {
			return k.scratch.floats(tile.Height)
		}
		return k.scratch.floats(tile.Chans[i-1])
	}

	pipe, err := k.pipeline(k.variantFor(params))
	if err != nil {
		return err
	}
	// The params on the GPU differ from the last tile's only in head lanes 2–4 (PackTile,
	// PackTarget) unless the stack changed: write just the words that differ.
	p := k.tileParams(params, &tile, target)
	rebind := k.bgTarget != [2]*wgpu.TextureView{target.Lo.View, target.Hi.View} || k.bg == nil || pipe != k.bgPipe || k.bgBufs[0] != k.height.Buf
	re, err := k.params.Ensure(uint64(len(p) * 4))
	if err != nil {
		return err
	}
	rebind = rebind || re
	lo, hi := 0, len(p)
	if !re && len(k.onGPU) == len(p) {
		for lo < hi && p[lo] == k.onGPU[lo] {
			lo++
		}
		for hi > lo && p[hi-1] == k.onGPU[hi-1] {
			hi--
		}
	}
	k.onGPU = k.onGPU[:0] // unknown until the writes below succeed
	type write struct {
		b    *Buffer
		off  uint64
		data []byte
	}
	var writes [6]write
	nw := 0
	if hi > lo {
		writes[nw] = write{k.params, uint64(lo * 4), k.scratch.words(p[lo:hi])}
		nw++
	}
	if re, err = k.height.Ensure(uint64(n * 4)); err != nil {
		return err
	}
	rebind = rebind || re
	writes[nw] = write{k.height, 0, plane(0)}
	nw++
	for i := range bound {
		if !bound[i] {
			rebind = rebind || k.bgChans[i]
			continue
		}
		if re, err = k.chans[i].Ensure(uint64(n * 4)); err != nil {
			return err
		}
		rebind = rebind || re || !k.bgChans[i]
		writes[nw] = write{k.chans[i], 0, plane(1 + i)}
		nw++
	}
	// One error scope for all the writes (each Buffer.Write would open its own). The queue copies
	// the data before WriteBuffer returns.
	err = k.dev.Do("write weights tile", func() error {
		for _, w := range writes[:nw] {
			if err := k.dev.Queue.WriteBuffer(w.b.Buf, w.off, w.data); err != nil {
				return fmt.Errorf("%s: %w", w.b.Label, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	k.onGPU = append(k.onGPU[:0], p...)
	if rebind {
		var chans [4]*Buffer
		for i, b := range bound {
			if b {
				chans[i] = k.chans[i]
			}
		}
		if err := k.bind(pipe, target, k.height, chans); err != nil {
			return err
		}
	}
	k.lastGroups = [2]uint32{(tile.Size[0] + weightsGroup - 1) / weightsGroup,
		(tile.Size[1] + weightsGroup - 1) / weightsGroup}
	return k.dev.Dispatch(pipe.Name, pipe, k.bg, k.lastGroups[0], k.lastGroups[1], 1)
}

// RunField is FieldTile + Run: the apron-inclusive blocks of tile t are cut from f's height grid
// and the channels named in channels (stack.Channels order) into the kernel's TileCutter (a block
// that is the whole grid is sent as it is) and queued. Same result as Run(FieldTile(f, channels,
// t)); the field may be edited as soon as it returns.
func (k *WeightsKernel) RunField(ctx context.Context, target *WeightsTarget, params []uint32, f *field.Field, channels []string, t field.Tile) error {
	if k == nil {
		return fmt.Errorf("gpu: weights: nil or released kernel")
	}
	wt, err := k.cut.Cut(f, channels, t)
	if err != nil {
		return err
	}
	return k.Run(ctx, target, params, wt)
}

// Repeat dispatches the last tile n more times in one submission, reading the buffers already on
// the GPU (no upload). It is what a benchmark times to separate the kernel from the transfer;
// the result in the target is the same as after the first dispatch.
func (k *WeightsKernel) Repeat(n int) error {
	if k == nil || k.bgPipe == nil || k.bg == nil || k.lastGroups[0] == 0 {
		return fmt.Errorf("gpu: weights: Repeat before a Run")
	}
	return k.dev.Submit("terrain_layer_weights repeat", func(enc *wgpu.CommandEncoder) error {
		return ComputePass(enc, "terrain_layer_weights repeat", func(pass *wgpu.ComputePassEncoder) {
			pass.SetPipeline(k.bgPipe.Pipeline)
			pass.SetBindGroup(0, k.bg, nil)
			for range n {
				pass.DispatchWorkgroups(k.lastGroups[0], k.lastGroups[1], 1)
			}
		})
	})
}

// bind builds the bind group on height and the channel buffers (nil: an unbound slot, bound to
// the height and never sampled).
func (k *WeightsKernel) bind(pipe *ComputePipeline, target *WeightsTarget, height *Buffer, chans [4]*Buffer) error {
	if k.bg != nil {
		k.bg.Release()
		k.bg = nil
	}
	entries := fieldEntries(k.params, height, chans, &k.bgBufs, &k.bgChans)
	entries = append(entries, TextureEntry(6, target.Lo), TextureEntry(7, target.Hi))
	bg, err := pipe.BindGroup(pipe.Name+" group0", entries...)
	if err != nil {
		k.bgTarget, k.bgPipe = [2]*wgpu.TextureView{}, nil
		return err
	}
	k.bg, k.bgTarget, k.bgPipe = bg, [2]*wgpu.TextureView{target.Lo.View, target.Hi.View}, pipe
	return nil
}

// RunResident evaluates the weights texels rect of a level of the weights grid into target (a
// level whose texel (i, j) is the grid's (i·stride, j·stride); stride 1 is the grid itself),
// reading the field where fb holds it on the GPU (FieldBuffers.Upload and Cut first): one
// dispatch per brick under rect, and no upload but the params and the bricks not there yet.
// Every read is placed from the field minimum and a brick's block holds every tap of its texels,
// so the bytes are those of any tiling (the editor runs a whole-field rect for a rule edit, the
// dirty tiles for a stroke, a page of a level for the view).
func (k *WeightsKernel) RunResident(ctx context.Context, target *WeightsTarget, params []uint32, fb *FieldBuffers, stride int, rect image.Rectangle) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("gpu: weights: %w", err)
	}
	if k == nil || k.pipes[variantPlain] == nil {
		return fmt.Errorf("gpu: weights: nil or released kernel")
	}
	if target == nil || target.Lo == nil {
		return fmt.Errorf("gpu: weights: nil or released target")
	}
	if rect.Empty() {
		return nil
	}
	pipe, err := k.pipeline(k.variantFor(params))
	if err != nil {
		return err
	}
	bp := &k.bricks
	if err := bp.begin(k.dev, fb.bricksLen(), len(params)); err != nil {
		return err
	}
	views := [2]*wgpu.TextureView{target.Lo.View, target.Hi.View}
	return fb.each(stride, rect, func(i int, height *Buffer, chans [4]*Buffer, tile WeightsTile) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("gpu: weights: %w", err)
		}
		if err := checkWeightsTile(target, params, &tile, false); err != nil {
			return err
		}
		pe, err := bp.params(i, k.tileParams(params, &tile, target))
		if err != nil {
			return err
		}
		key := bindKey{pipe: pipe, params: pe.Buffer, off: pe.Offset, size: pe.Size, views: views}
		bg, err := fb.bind(i, key, pipe.Name+" brick group0", func(height *Buffer, chans [4]*Buffer) []wgpu.BindGroupEntry {
			return append(brickEntries(pe, height, chans), TextureEntry(6, target.Lo), TextureEntry(7, target.Hi))
		})
		if err != nil {
			return err
		}
		bp.add(bg, (tile.Size[0]+weightsGroup-1)/weightsGroup, (tile.Size[1]+weightsGroup-1)/weightsGroup, 1)
		return nil
	}, func() error { return bp.submit(k.dev, pipe) })
}

// tileParams is params with head lanes 2–4 (PackTile, PackTarget) patched for tile in target,
// in the kernel's scratch.
func (k *WeightsKernel) tileParams(params []uint32, tile *WeightsTile, target *WeightsTarget) []uint32 {
	return patchTile(&k.pwork, params, tile, target.Origin)
}

// patchTile copies params into *work (grown when short) and patches head lanes 2–4 for tile
// written at the global texel origin of the target or grid (stack.PackTile, stack.PackTarget).
func patchTile(work *[]uint32, params []uint32, tile *WeightsTile, origin [2]uint32) []uint32 {
	if cap(*work) < len(params) {
		*work = make([]uint32, len(params))
	}
	p := (*work)[:len(params)]
	copy(p, params)
	stack.PackTile(p, tile.Origin, tile.Size, tile.BufOrigin, tile.BufSize)
	stack.PackTarget(p, origin)
	return p
}

// checkWeightsTile checks a tile against target and params; dense also checks its Height and
// Chans blocks (a resident field's tile has none: the buffers are the grids).
func checkWeightsTile(target *WeightsTarget, params []uint32, t *WeightsTile, dense bool) error {
	if len(params) < stack.RulesWord {
		return fmt.Errorf("gpu: weights: params of %d words, need at least %d (stack.Pack output)", len(params), stack.RulesWord)
	}
	if (len(params)-stack.RulesWord)%(stack.RuleLanes*stack.LaneWords) != 0 {
		return fmt.Errorf("gpu: weights: params of %d words is not whole rule lanes", len(params))
	}
	// The kernel writes texel g at g − Origin modulo 2^32 (an atlas slot's target has an Origin
	// "below" zero): the tile must land inside the target's texels.
	if rx, rz := t.Origin[0]-target.Origin[0], t.Origin[1]-target.Origin[1]; uint64(rx)+uint64(t.Size[0]) > uint64(target.W) ||
		uint64(rz)+uint64(t.Size[1]) > uint64(target.H) {
		return fmt.Errorf("gpu: weights: tile %v+%v outside the %dx%d target at %v", t.Origin, t.Size, target.W, target.H, target.Origin)
	}
	n := uint64(t.BufSize[0]) * uint64(t.BufSize[1])
	if n == 0 {
		return fmt.Errorf("gpu: weights: empty height buffer %v", t.BufSize)
	}
	if !dense {
		return nil
	}
	if uint64(len(t.Height)) != n {
		return fmt.Errorf("gpu: weights: height buffer has %d samples, want %d (%v)", len(t.Height), n, t.BufSize)
	}
	for i, c := range t.Chans {
		if c != nil && uint64(len(c)) != n {
			return fmt.Errorf("gpu: weights: chan%d buffer has %d samples, want %d", i, len(c), n)
		}
	}
	return nil
}
