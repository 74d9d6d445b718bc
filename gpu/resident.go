package gpu

import (
	"fmt"
	"image"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/field"
)

// FieldBuffers is a field kept on the GPU between evaluations: its whole height grid and the
// channels a stack binds (chan0..chan3, stack.Channels order), one storage buffer each. The
// weights kernel (RunResident) and the density kernel (DensityResident) read them in place, so
// the editor's live loop uploads the field once and then only the rows an edit changed — a
// 4096² field with two channels is 192 MiB that a tile-by-tile evaluation uploaded on every pass.
type FieldBuffers struct {
	W, H   uint32
	Height *Buffer
	Chans  [4]*Buffer

	dev   *Device
	names [4]string // the channel bound to each slot ("" = none)
	grids [5]*field.Grid
}

// NewFieldBuffers returns empty buffers; Upload fills them.
func (d *Device) NewFieldBuffers() *FieldBuffers { return &FieldBuffers{dev: d} }

// FieldFits reports whether a w×h float32 grid fits one storage binding (and one buffer) of this
// device, so the resident path can hold the field and the place kernel its height; otherwise
// callers evaluate tile by tile.
func (d *Device) FieldFits(w, h int) bool {
	need := 4 * uint64(w) * uint64(h)
	lim := d.Limits
	return (lim.MaxStorageBufferBindingSize == 0 || need <= lim.MaxStorageBufferBindingSize) &&
		(lim.MaxBufferSize == 0 || need <= lim.MaxBufferSize)
}

// Release frees the buffers. Safe on nil and twice.
func (fb *FieldBuffers) Release() {
	if fb == nil {
		return
	}
	fb.Height.Release()
	fb.Height = nil
	for i := range fb.Chans {
		fb.Chans[i].Release()
		fb.Chans[i] = nil
	}
	fb.names, fb.grids = [4]string{}, [5]*field.Grid{}
}

// Upload brings the buffers in line with f and channels. A plane is uploaded whole when it is
// new — another grid, another size, another channel in its slot — and otherwise only the rows of
// rect (height texels) are written; an empty rect writes nothing for planes already there. It
// reports whether any buffer was recreated (bind groups on the old ones are stale).
func (fb *FieldBuffers) Upload(f *field.Field, channels []string, rect image.Rectangle) (recreated bool, err error) {
	if fb == nil || fb.dev == nil {
		return false, fmt.Errorf("gpu: field buffers: nil")
	}
	if f == nil || f.Height == nil {
		return false, fmt.Errorf("gpu: field buffers: no height grid")
	}
	if len(channels) > 4 {
		return false, fmt.Errorf("gpu: field buffers: %d channels, the kernels have 4 slots (%v)", len(channels), channels)
	}
	w, h := f.Height.W, f.Height.H
	if !fb.dev.FieldFits(w, h) {
		return false, fmt.Errorf("gpu: field buffers: a %dx%d field does not fit one storage binding: %w", w, h, ErrTooLarge)
	}
	sized := fb.W == uint32(w) && fb.H == uint32(h)
	fb.W, fb.H = uint32(w), uint32(h)
	rect = rect.Intersect(image.Rect(0, 0, w, h))
	var up *Uploader // whole planes share one ring of staging buffers
	defer func() { up.Release() }()
	plane := func(b **Buffer, label string, g *field.Grid, whole bool) error {
		if whole {
			// A whole plane: a buffer made holding it (NewBufferFrom).
			nb, err := fb.dev.newBufferFrom(label, wgpu.ToBytes(g.Data), wgpu.BufferUsageStorage, &up)
			if err != nil {
				return err
			}
			(*b).Release()
			*b, recreated = nb, true
			return nil
		}
		if *b == nil {
			nb, err := fb.dev.NewBuffer(label, 4*uint64(w)*uint64(h), wgpu.BufferUsageStorage)
			if err != nil {
				return err
			}
			*b, whole, recreated = nb, true, true
		} else if re, err := (*b).Ensure(4 * uint64(w) * uint64(h)); err != nil {
			return err
		} else if re {
			whole, recreated = true, true
		}
		if whole {
			return (*b).Write(0, wgpu.ToBytes(g.Data))
		}
		if rect.Empty() {
			return nil
		}
		if rect.Dx() == w { // whole rows: one contiguous write
			return (*b).Write(4*uint64(rect.Min.Y*w), wgpu.ToBytes(g.Data[rect.Min.Y*w:rect.Max.Y*w]))
		}
		// A row at a time, in one error scope (Buffer.Write would open one per row).
		buf := (*b).Buf
		return fb.dev.Do("write "+(*b).Label, func() error {
			for j := rect.Min.Y; j < rect.Max.Y; j++ {
				row := g.Data[j*w+rect.Min.X : j*w+rect.Max.X]
				if err := fb.dev.Queue.WriteBuffer(buf, 4*uint64(j*w+rect.Min.X), wgpu.ToBytes(row)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := plane(&fb.Height, "resident height", f.Height, !sized || fb.grids[0] != f.Height); err != nil {
		return recreated, err
	}
	fb.grids[0] = f.Height
	for i := range fb.Chans {
		name := ""
		if i < len(channels) {
			name = channels[i]
		}
		if name == "" {
			fb.names[i], fb.grids[1+i] = "", nil
			continue // an unbound slot keeps its buffer (bound to the height by the kernels)
		}
		g := f.Channels[name]
		if g == nil {
			return recreated, fmt.Errorf("gpu: field buffers: the stack reads channel %q, which the field lacks", name)
		}
		if g.W != w || g.H != h {
			return recreated, fmt.Errorf("gpu: field buffers: channel %q is %dx%d, the height %dx%d", name, g.W, g.H, w, h)
		}
		whole := !sized || fb.names[i] != name || fb.grids[1+i] != g
		if err := plane(&fb.Chans[i], fmt.Sprintf("resident chan%d", i), g, whole); err != nil {
			return recreated, err
		}
		fb.names[i], fb.grids[1+i] = name, g
	}
	return recreated, nil
}

// bound reports which slots hold a channel now.
func (fb *FieldBuffers) bound() [4]bool {
	var b [4]bool
	for i, n := range fb.names {
		b[i] = n != ""
	}
	return b
}

// bindings is what a kernel binds to read fb: the height and each slot's channel buffer (nil for
// an unbound slot).
func (fb *FieldBuffers) bindings() (height *Buffer, chans [4]*Buffer) {
	for i, b := range fb.bound() {
		if b {
			chans[i] = fb.Chans[i]
		}
	}
	return fb.Height, chans
}

// boundIn reports that a bind group built on bufs (height, chan0..chan3 as bound) with the slots
// chans reads fb's buffers as they are now (an Upload may have recreated one, or bound a slot).
func (fb *FieldBuffers) boundIn(bufs [5]*wgpu.Buffer, chans [4]bool) bool {
	if fb.Height.Buf != bufs[0] || fb.bound() != chans {
		return false
	}
	for i := range fb.Chans {
		if fb.buffer(i).Buf != bufs[1+i] {
			return false
		}
	}
	return true
}

// fieldEntries are the bind group entries both kernels start with — params at binding 0, height
// at 1, channel slots 0–3 at 2–5 (an unbound slot, nil, reads the height and is never sampled) —
// and records what they bind as boundIn compares it: bufs[0] the height, bufs[1+i] slot i's
// buffer, bound[i] whether slot i has its own.
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

// buffer returns slot i's buffer, or the height for an unbound slot (never sampled).
func (fb *FieldBuffers) buffer(i int) *Buffer {
	if fb.names[i] == "" {
		return fb.Height
	}
	return fb.Chans[i]
}

// tile is the tile header of the weights texels rect read from the whole resident field: the
// kernels' buffer is the grid itself, so the apron is the grid's clamp, as any tiling's is.
func (fb *FieldBuffers) tile(rect image.Rectangle) WeightsTile {
	return WeightsTile{
		Origin:  [2]uint32{uint32(rect.Min.X), uint32(rect.Min.Y)},
		Size:    [2]uint32{uint32(rect.Dx()), uint32(rect.Dy())},
		BufSize: [2]uint32{fb.W, fb.H},
	}
}
