package gpu

import (
	"cmp"
	"context"
	"fmt"
	"image"
	"slices"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
)

// FieldBuffers is a field kept on the GPU between evaluations, in bricks: the weights grid is cut
// into squares of BrickSize texels, and each brick holds the apron-inclusive block of the height
// grid and of the channels a stack binds (chan0..chan3, stack.Channels order) that its texels
// read — one storage buffer a plane, a few MiB each, never a whole 16K field. The bricks are an
// LRU cache under a byte budget: a kernel asks for the texels it evaluates, the bricks under them
// are uploaded when missing (evicting the least recently used), and an edit rewrites only its
// rows in the bricks already there. The weights kernel (RunResident) and the density kernel
// (DensityResident) dispatch once per brick a rect covers, reading each in place; the bytes are
// those of any tiling (docs/design.md "Field bricks on the device").
type FieldBuffers struct {
	// BrickSize is a brick's side in weights texels (tests make it small to cut a small field
	// into several); set before the first Cut.
	BrickSize int

	dev    *Device
	mu     sync.Mutex // Fill (a goroutine) against the kernels and edits
	budget int64      // bytes the bricks may hold (at least one brick is always held)

	// What the bricks hold: the field, the channel of each slot, the level-0 geometry and the
	// gradient step the aprons are cut for.
	f     *field.Field
	grids [5]*field.Grid // height, chan0..chan3 (nil: an unbound slot)
	names [4]string
	geo   field.Geometry
	step  float32
	cut   bool

	nx, ny int
	bricks []brick
	held   int64  // bytes of the bricks' buffers
	tick   uint64 // LRU clock
	up     *Uploader
	// Uploaded counts the bytes written into bricks (whole bricks and edited rows) since the
	// buffers were made: what an edit or a flight over the field cost in transfers.
	Uploaded int64
}

// brick is one square of the weights grid and its blocks on the device.
type brick struct {
	t      field.Tile
	planes [5]*Buffer // height, chan0..chan3; nil: not on the device
	used   uint64
	binds  []brickBind // the kernels' bind groups on its planes (FieldBuffers.bind)
}

// DefaultBrickSize is a brick's side in weights texels: a 1024² brick of a field whose grids
// match is about 4 MiB a plane, 256 bricks for a 16K field.
const DefaultBrickSize = 1024

// NewFieldBuffers returns empty buffers that hold at most budget bytes of bricks (≤ 0: no
// bound); Upload and Cut say what they hold, the kernels fill them as they read.
func (d *Device) NewFieldBuffers(budget int64) *FieldBuffers {
	return &FieldBuffers{dev: d, budget: budget, BrickSize: DefaultBrickSize}
}

// Release frees every brick. Safe on nil and twice.
func (fb *FieldBuffers) Release() {
	if fb == nil {
		return
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	fb.dropAll()
	fb.up.Release() // copies never flushed are dropped with the bricks they fill
	fb.up = nil
	fb.f, fb.grids, fb.names, fb.cut = nil, [5]*field.Grid{}, [4]string{}, false
}

// Held is the bytes the bricks hold on the device now.
func (fb *FieldBuffers) Held() int64 {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	return fb.held
}

// Cut sets the level-0 geometry of the field's weights grid and the gradient step (metres) the
// bricks' aprons are cut for. Another geometry or step drops every brick (their blocks are cut
// differently); the same ones keep them.
func (fb *FieldBuffers) Cut(geo *field.Geometry, gradientStep float32) {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	g := *geo
	g.Stride = 0
	if fb.cut && fb.geo == g && fb.step == gradientStep {
		return
	}
	fb.dropAll()
	fb.geo, fb.step, fb.cut = g, gradientStep, true
	size := max(1, fb.BrickSize)
	tiles := field.Tiles(&g, size, gradientStep)
	fb.nx, fb.ny = field.TileGrid(g.WeightsW, g.WeightsH, size)
	fb.bricks = make([]brick, len(tiles))
	for i, t := range tiles {
		fb.bricks[i].t = t
	}
}

// Upload brings the buffers in line with f and channels: a plane whose grid is another (another
// size, another channel in its slot, a reloaded height) is dropped from every brick and uploaded
// again as the kernels read it; otherwise the rows of rect (height texels) are rewritten in the
// bricks on the device that hold them, and an empty rect writes nothing. It reports whether any
// plane was dropped.
func (fb *FieldBuffers) Upload(f *field.Field, channels []string, rect image.Rectangle) (dropped bool, err error) {
	return fb.UploadPlanes(f, channels, rect, false)
}

// UploadPlanes is Upload; with heightOnly the rows of rect are rewritten in the height plane
// alone (the caller promises the channels' values did not change there: a sculpt dab's rows are
// a third of the writes on a field with two channels).
func (fb *FieldBuffers) UploadPlanes(f *field.Field, channels []string, rect image.Rectangle, heightOnly bool) (dropped bool, err error) {
	if fb == nil || fb.dev == nil {
		return false, fmt.Errorf("gpu: field buffers: nil")
	}
	if f == nil || f.Height == nil {
		return false, fmt.Errorf("gpu: field buffers: no height grid")
	}
	if len(channels) > 4 {
		return false, fmt.Errorf("gpu: field buffers: %d channels, the kernels have 4 slots (%v)", len(channels), channels)
	}
	var grids [5]*field.Grid
	var names [4]string
	grids[0] = f.Height
	for i, name := range channels {
		g, ok, err := f.ChannelGrid(name) // the flow plane for field.FlowChannel
		if err != nil {
			return false, fmt.Errorf("gpu: field buffers: %w", err)
		}
		if !ok {
			return false, fmt.Errorf("gpu: field buffers: the stack reads channel %q, which the field lacks", name)
		}
		if g.W != f.Height.W || g.H != f.Height.H {
			return false, fmt.Errorf("gpu: field buffers: channel %q is %dx%d, the height %dx%d", name, g.W, g.H, f.Height.W, f.Height.H)
		}
		grids[1+i], names[i] = g, name
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	if fb.cut && (fb.geo.HeightW != f.Height.W || fb.geo.HeightH != f.Height.H) {
		fb.dropAll()
		fb.cut = false // the owner cuts again for the new grid
		dropped = true
	}
	for p := range grids {
		if grids[p] != fb.grids[p] || p > 0 && names[p-1] != fb.names[p-1] {
			fb.dropPlane(p)
			dropped = true
		}
	}
	fb.f, fb.grids, fb.names = f, grids, names
	rect = rect.Intersect(image.Rect(0, 0, f.Height.W, f.Height.H))
	if rect.Empty() || !fb.cut {
		return dropped, nil
	}
	return dropped, fb.writeRows(rect, heightOnly)
}

// writeRows rewrites the texels of rect in every plane (heightOnly: the height's) of the bricks on
// the device whose blocks hold them. fb.mu is held.
func (fb *FieldBuffers) writeRows(rect image.Rectangle, heightOnly bool) error {
	return fb.dev.Do("write field bricks", func() error {
		for bi := range fb.bricks {
			b := &fb.bricks[bi]
			br := image.Rect(b.t.BufI0, b.t.BufJ0, b.t.BufI0+b.t.BufW, b.t.BufJ0+b.t.BufH)
			r := rect.Intersect(br)
			if r.Empty() {
				continue
			}
			for p, buf := range b.planes {
				if buf == nil || heightOnly && p > 0 {
					continue
				}
				g := fb.grids[p]
				for j := r.Min.Y; j < r.Max.Y; j++ {
					row := g.Data[j*g.W+r.Min.X : j*g.W+r.Max.X]
					off := 4 * uint64((j-br.Min.Y)*b.t.BufW+r.Min.X-br.Min.X)
					if err := fb.dev.Queue.WriteBuffer(buf.Buf, off, wgpu.ToBytes(row)); err != nil {
						return fmt.Errorf("%s: %w", buf.Label, err)
					}
					fb.Uploaded += int64(4 * len(row))
					fb.dev.counts.writeBytes.Add(int64(4 * len(row)))
				}
			}
		}
		return nil
	})
}

// Fill uploads the bricks of the whole grid, nearest the weights texel near first, until they
// are all on the device or the budget is full (what an open does beside its first frames, so
// that the first evaluations find the field there). It stops at ctx's end.
func (fb *FieldBuffers) Fill(ctx context.Context, near image.Point) error {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	if !fb.cut || fb.f == nil {
		return fmt.Errorf("gpu: field buffers: Fill before Cut and Upload")
	}
	order := make([]int, len(fb.bricks))
	for i := range order {
		order[i] = i
	}
	dist := func(i int) int {
		t := fb.bricks[i].t
		dx := max(t.I0-near.X, near.X-(t.I0+t.W-1), 0)
		dy := max(t.J0-near.Y, near.Y-(t.J0+t.H-1), 0)
		return dx*dx + dy*dy
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(dist(a), dist(b)) })
	defer fb.submitUploads() // an error's way out: no brick stays without its bytes
	for _, i := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		if fb.budget > 0 && fb.held+fb.brickBytes(i) > fb.budget && fb.held > 0 {
			break // the budget is full: the rest comes as the kernels read it
		}
		if err := fb.ensure(i); err != nil {
			return err
		}
	}
	return fb.submitUploads()
}

// each calls add for every brick under the texels rect of a level whose texel (i, j) is the
// weights grid's (i·stride, j·stride): with the brick's index and buffers on the device
// (uploaded first when missing) and the tile header of the part of rect whose full-resolution
// texels lie in the brick; add records a dispatch, submit submits what add recorded (one compute
// pass: brickPass). submit runs once at the end, and before a brick missing from the device
// evicts another (the recorded dispatches read the bricks there now), with the uploads queued
// for the bricks submitted first. fb.mu is held throughout.
func (fb *FieldBuffers) each(stride int, rect image.Rectangle, add func(i int, height *Buffer, chans [4]*Buffer, t WeightsTile) error, submit func() error) error {
	if fb == nil {
		return fmt.Errorf("gpu: field buffers: nil")
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	if !fb.cut || fb.f == nil {
		return fmt.Errorf("gpu: field buffers: no field (Upload and Cut first)")
	}
	stride = max(1, stride)
	size := max(1, fb.BrickSize)
	defer fb.submitUploads() // an error's way out: no brick stays without its bytes
	recorded := false
	flush := func() error {
		if err := fb.submitUploads(); err != nil {
			return err
		}
		recorded = false
		return submit()
	}
	// The bricks whose cores hold full texels [rect.Min·stride, (rect.Max−1)·stride].
	bx0, by0 := rect.Min.X*stride/size, rect.Min.Y*stride/size
	bx1, by1 := min(fb.nx-1, (rect.Max.X-1)*stride/size), min(fb.ny-1, (rect.Max.Y-1)*stride/size)
	for by := by0; by <= by1; by++ {
		for bx := bx0; bx <= bx1; bx++ {
			i := by*fb.nx + bx
			t := fb.bricks[i].t
			// The level texels whose full texel lies in the core: [⌈I0/s⌉, ⌈(I0+W)/s⌉).
			core := image.Rect(ceilDiv(t.I0, stride), ceilDiv(t.J0, stride), ceilDiv(t.I0+t.W, stride), ceilDiv(t.J0+t.H, stride))
			part := rect.Intersect(core)
			if part.Empty() {
				continue
			}
			if recorded && fb.evicts(i) {
				if err := flush(); err != nil {
					return err
				}
			}
			if err := fb.ensure(i); err != nil {
				return err
			}
			height, chans := fb.planesOf(i)
			wt := WeightsTile{
				Origin:    [2]uint32{uint32(part.Min.X), uint32(part.Min.Y)},
				Size:      [2]uint32{uint32(part.Dx()), uint32(part.Dy())},
				BufOrigin: [2]uint32{uint32(t.BufI0), uint32(t.BufJ0)},
				BufSize:   [2]uint32{uint32(t.BufW), uint32(t.BufH)},
			}
			if err := add(i, height, chans, wt); err != nil {
				return err
			}
			recorded = true
		}
	}
	return flush()
}

// planesOf is brick i's height buffer and its bound channel slots' (nil: unbound). fb.mu is held.
func (fb *FieldBuffers) planesOf(i int) (height *Buffer, chans [4]*Buffer) {
	b := &fb.bricks[i]
	for s := range chans {
		if fb.grids[1+s] != nil {
			chans[s] = b.planes[1+s]
		}
	}
	return b.planes[0], chans
}

// submitUploads submits the copies queued for the bricks; when that fails the bricks they were
// to fill are dropped (uploaded again when read). fb.mu is held.
func (fb *FieldBuffers) submitUploads() error {
	if err := fb.up.Flush(); err != nil {
		fb.dropAll()
		return err
	}
	return nil
}

// evicts reports whether putting brick i on the device evicts another. fb.mu is held.
func (fb *FieldBuffers) evicts(i int) bool {
	need := fb.brickBytes(i) - fb.bytesOf(i)
	return need > 0 && fb.budget > 0 && fb.held+need > fb.budget
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// ensure puts brick i's bound planes on the device (evicting the least recently used bricks past
// the budget) and marks it used. fb.mu is held.
func (fb *FieldBuffers) ensure(i int) error {
	fb.tick++
	b := &fb.bricks[i]
	b.used = fb.tick
	missing := false
	for p, g := range fb.grids {
		if g != nil && b.planes[p] == nil {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	if fb.evicts(i) {
		// The copies queued for the bricks about to go are submitted first (they name them).
		if err := fb.submitUploads(); err != nil {
			return err
		}
	}
	need := fb.brickBytes(i) - fb.bytesOf(i)
	for fb.budget > 0 && fb.held+need > fb.budget {
		if !fb.evict(i) {
			break // nothing else to evict: one brick is always held
		}
	}
	if fb.up == nil {
		fb.up = fb.dev.NewUploader("field bricks", 4)
	}
	t := b.t
	for p, g := range fb.grids {
		if g == nil || b.planes[p] != nil {
			continue
		}
		fb.dropBinds(i)
		buf, err := fb.dev.NewBuffer(fmt.Sprintf("field brick %d plane %d", i, p), uint64(4*t.BufW*t.BufH), wgpu.BufferUsageStorage)
		if err != nil {
			return err
		}
		if err := fb.queueBlock(buf, g, t.BufI0, t.BufJ0, t.BufW, t.BufH); err != nil {
			buf.Release()
			return err
		}
		b.planes[p] = buf
		fb.held += int64(buf.Cap)
		fb.Uploaded += int64(4 * t.BufW * t.BufH)
	}
	return nil
}

// queueBlock queues the w×h block of g at (i0, j0) into dst, row after row, copied straight from
// the grid into the uploader's staging buffers on every core. fb.mu is held.
func (fb *FieldBuffers) queueBlock(dst *Buffer, g *field.Grid, i0, j0, w, h int) error {
	src := wgpu.ToBytes(g.Data)
	row := uint64(4 * w)
	return fb.up.Queue(dst, 0, row*uint64(h), func(m []byte, at uint64) {
		for len(m) > 0 {
			j, c := at/row, at%row
			o := (uint64(j0)+j)*uint64(4*g.W) + uint64(4*i0) + c
			n := copy(m, src[o:o+row-c])
			m, at = m[n:], at+uint64(n)
		}
	})
}

// bound is the number of channel slots in use (the slots are filled in order).
func (fb *FieldBuffers) bound() int {
	n := 0
	for i, name := range fb.names {
		if name != "" {
			n = i + 1
		}
	}
	return n
}

// brickBytes is what brick i takes with every bound plane; bytesOf what it holds now.
func (fb *FieldBuffers) brickBytes(i int) int64 {
	t := fb.bricks[i].t
	n := int64(0)
	for _, g := range fb.grids {
		if g != nil {
			n += int64(align(uint64(4*t.BufW*t.BufH), 4))
		}
	}
	return n
}

func (fb *FieldBuffers) bytesOf(i int) int64 {
	n := int64(0)
	for _, b := range fb.bricks[i].planes {
		if b != nil {
			n += int64(b.Cap)
		}
	}
	return n
}

// evict drops the least recently used brick on the device other than keep; false when there is
// none. Work already queued on its buffers still reads them (the device frees them after).
func (fb *FieldBuffers) evict(keep int) bool {
	victim := -1
	for i := range fb.bricks {
		if i == keep || fb.bytesOf(i) == 0 {
			continue
		}
		if victim < 0 || fb.bricks[i].used < fb.bricks[victim].used {
			victim = i
		}
	}
	if victim < 0 {
		return false
	}
	for p := range fb.bricks[victim].planes {
		fb.releasePlane(victim, p)
	}
	return true
}

func (fb *FieldBuffers) releasePlane(i, p int) {
	b := fb.bricks[i].planes[p]
	if b == nil {
		return
	}
	fb.dropBinds(i)
	fb.held -= int64(b.Cap)
	b.Release()
	fb.bricks[i].planes[p] = nil
}

// dropPlane drops plane p from every brick; dropAll every brick. fb.mu is held.
func (fb *FieldBuffers) dropPlane(p int) {
	for i := range fb.bricks {
		fb.releasePlane(i, p)
	}
}

func (fb *FieldBuffers) dropAll() {
	for p := range 5 {
		fb.dropPlane(p)
	}
}

// fieldEntries are the bind group entries both kernels start with — params at binding 0, height
// at 1, channel slots 0–3 at 2–5 (an unbound slot, nil, reads the height and is never sampled) —
// and records what they bind: bufs[0] the height, bufs[1+i] slot i's buffer, bound[i] whether
// slot i has its own.
func fieldEntries(params, height *Buffer, chans [4]*Buffer, bufs *[5]*wgpu.Buffer, bound *[4]bool) []wgpu.BindGroupEntry {
	entries := []wgpu.BindGroupEntry{BufferEntry(0, params), BufferEntry(1, height)}
	bufs[0] = height.Buf
	for i, c := range chans {
		b := height
		if c != nil {
			b = c
		}
		bound[i] = c != nil
		bufs[1+i] = b.Buf
		entries = append(entries, BufferEntry(uint32(2+i), b))
	}
	return entries
}
