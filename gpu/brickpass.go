package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// brickPass is one kernel's dispatches over the bricks a rect covers (FieldBuffers.each),
// submitted as one compute pass: each brick's params sit in the brick's own slot of an arena
// buffer (slot i: brick i, so a call's dispatches never share one), and each brick's bind group
// is kept on the brick from call to call while what it binds stays the same (FieldBuffers.bind).
// A 16K field's whole-grid pass is one submission of 256 dispatches, a page of a coarse level one
// submission of the dozen bricks under it, instead of a params write, a bind group and a
// submission a brick (docs/design.md "Field bricks on the device").
type brickPass struct {
	label string
	arena *Buffer // params slots, created on first use
	host  []byte  // what the arena holds (the slots written since the last submit are lo..hi)
	slot  uint64  // bytes a slot: the params rounded up to the storage offset alignment
	lo    uint64
	hi    uint64
	calls []brickCall
}

// brickCall is one recorded dispatch.
type brickCall struct {
	bg      *wgpu.BindGroup
	x, y, z uint32
}

// begin readies the arena for params of words words over n bricks and drops what an earlier call
// left unsubmitted (an error's leftovers).
func (bp *brickPass) begin(d *Device, n, words int) error {
	bp.calls = bp.calls[:0]
	bp.lo, bp.hi = 0, 0
	align64 := uint64(d.Limits.MinStorageBufferOffsetAlignment)
	if align64 == 0 {
		align64 = 256
	}
	bp.slot = align(uint64(4*words), align64)
	size := bp.slot * uint64(max(1, n))
	if bp.arena == nil {
		var err error
		if bp.arena, err = d.NewBuffer(bp.label, size, wgpu.BufferUsageStorage); err != nil {
			return err
		}
	} else if _, err := bp.arena.Ensure(size); err != nil {
		return err
	}
	if uint64(len(bp.host)) < size {
		bp.host = make([]byte, size)
	}
	return nil
}

// params writes brick i's params into its slot (uploaded at submit) and returns the entry that
// binds it at binding 0.
func (bp *brickPass) params(i int, p []uint32) (wgpu.BindGroupEntry, error) {
	off := uint64(i) * bp.slot
	n := uint64(4 * len(p))
	if bp.arena == nil || n > bp.slot || off+n > uint64(len(bp.host)) {
		return wgpu.BindGroupEntry{}, fmt.Errorf("gpu: %s: brick %d's params (%d bytes) outside the arena of %d", bp.label, i, n, len(bp.host))
	}
	for k, w := range p {
		o := off + uint64(4*k)
		bp.host[o], bp.host[o+1], bp.host[o+2], bp.host[o+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
	if bp.hi == bp.lo {
		bp.lo, bp.hi = off, off+n
	} else {
		bp.lo, bp.hi = min(bp.lo, off), max(bp.hi, off+n)
	}
	return wgpu.BindGroupEntry{Binding: 0, Buffer: bp.arena.Buf, Offset: off, Size: n}, nil
}

// brickEntries are fieldEntries with the params entry p (a slot of the arena) at binding 0.
func brickEntries(p wgpu.BindGroupEntry, height *Buffer, chans [4]*Buffer) []wgpu.BindGroupEntry {
	var bufs [5]*wgpu.Buffer
	var bound [4]bool
	es := fieldEntries(height, height, chans, &bufs, &bound)
	es[0] = p
	return es
}

// add records a dispatch of x×y×z workgroups with bg.
func (bp *brickPass) add(bg *wgpu.BindGroup, x, y, z uint32) {
	bp.calls = append(bp.calls, brickCall{bg, x, y, z})
}

// submit uploads the slots written and submits the recorded dispatches of pipe as one compute
// pass. Nothing recorded: nothing happens.
func (bp *brickPass) submit(d *Device, pipe *ComputePipeline) error {
	calls := bp.calls
	bp.calls = bp.calls[:0]
	if len(calls) == 0 {
		return nil
	}
	lo, hi := bp.lo, bp.hi
	bp.lo, bp.hi = 0, 0
	if hi > lo {
		if err := bp.arena.Write(lo, bp.host[lo:hi]); err != nil {
			return err
		}
	}
	return d.Submit(pipe.Name, func(enc *wgpu.CommandEncoder) error {
		return ComputePass(enc, pipe.Name, func(pass *wgpu.ComputePassEncoder) {
			pass.SetPipeline(pipe.Pipeline)
			for _, c := range calls {
				pass.SetBindGroup(0, c.bg, nil)
				pass.DispatchWorkgroups(c.x, c.y, c.z)
			}
		})
	})
}

// release frees the arena. Safe on nil and twice.
func (bp *brickPass) release() {
	if bp == nil {
		return
	}
	bp.arena.Release()
	bp.arena, bp.host, bp.calls = nil, nil, nil
}

// bindKey is what a brick's bind group binds besides the brick's own planes: the pipeline, the
// params slot, and up to three more objects (the target's textures, the density grid).
type bindKey struct {
	pipe      *ComputePipeline
	params    *wgpu.Buffer
	off, size uint64
	views     [2]*wgpu.TextureView
	extra     *wgpu.Buffer
	planes    [5]*wgpu.Buffer
	bound     [4]bool
}

// brickBind is a bind group kept on a brick, and what it binds.
type brickBind struct {
	key bindKey
	bg  *wgpu.BindGroup
}

// bindsPerBrick is how many bind groups a brick keeps (a kernel's pages and its whole-grid target,
// two kernels): the oldest goes past it.
const bindsPerBrick = 4

// bind returns brick i's bind group for key (key.planes and key.bound are filled here from the
// brick), made with entries (the params entry and the brick's planes first, as fieldEntries
// builds them, then extra) when the brick keeps none for it. fb.mu is held.
func (fb *FieldBuffers) bind(i int, key bindKey, label string, entries func(height *Buffer, chans [4]*Buffer) []wgpu.BindGroupEntry) (*wgpu.BindGroup, error) {
	b := &fb.bricks[i]
	height, chans := fb.planesOf(i)
	if height == nil {
		return nil, fmt.Errorf("gpu: %s: brick %d is not on the device", label, i)
	}
	key.planes[0] = height.Buf
	for s, c := range chans {
		if c != nil {
			key.planes[1+s], key.bound[s] = c.Buf, true
		}
	}
	for _, bb := range b.binds {
		if bb.key == key {
			return bb.bg, nil
		}
	}
	bg, err := key.pipe.BindGroup(label, entries(height, chans)...)
	if err != nil {
		return nil, err
	}
	if len(b.binds) >= bindsPerBrick {
		b.binds[0].bg.Release()
		b.binds = append(b.binds[:0], b.binds[1:]...)
	}
	b.binds = append(b.binds, brickBind{key, bg})
	return bg, nil
}

// bricksLen is the number of bricks the grid is cut into (0 before Cut).
func (fb *FieldBuffers) bricksLen() int {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	return len(fb.bricks)
}

// dropBinds frees brick i's bind groups (its planes are going, or what they bind).
func (fb *FieldBuffers) dropBinds(i int) {
	for _, bb := range fb.bricks[i].binds {
		bb.bg.Release()
	}
	fb.bricks[i].binds = nil
}
