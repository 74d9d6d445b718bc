package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// Buffer is a labelled GPU buffer that is recreated only when it must grow: Ensure and Upload
// write in place while the data fits, so bind groups built on it stay valid until they report
// recreated == true.
type Buffer struct {
	Label string
	Usage wgpu.BufferUsage
	Size  uint64 // the logical size last asked for
	Cap   uint64 // the allocated size (Size rounded up to 4, never shrinks)
	Buf   *wgpu.Buffer

	dev *Device
}

// NewBuffer allocates a buffer of at least size bytes. CopyDst (and, unless it is a MapRead
// buffer, CopySrc) are added to usage so every buffer can be written and read back.
func (d *Device) NewBuffer(label string, size uint64, usage wgpu.BufferUsage) (*Buffer, error) {
	if usage&wgpu.BufferUsageMapRead != 0 {
		usage |= wgpu.BufferUsageCopyDst
	} else {
		usage |= wgpu.BufferUsageCopyDst | wgpu.BufferUsageCopySrc
	}
	b := &Buffer{Label: label, Usage: usage, dev: d}
	if _, err := b.Ensure(size); err != nil {
		return nil, err
	}
	return b, nil
}

// NewBufferFrom allocates a buffer holding data (padded to a multiple of 4). Data of more than a
// few staging pieces goes up through an Uploader (copied into mapped staging buffers on every
// core, outside the device's lock, each piece's copy a short submission); less is written with
// Queue.WriteBuffer in pieces of uploadPiece bytes, each its own call on the device. Every call
// on the device waits for the one under way (Do): a 16K field's 1 GiB plane in one call held up
// the editor's pages and frames for 0.6 s a plane on the H200 (docs/PERFORMANCE.md, "Issue 15").
// CopyDst and CopySrc are added to usage.
func (d *Device) NewBufferFrom(label string, data []byte, usage wgpu.BufferUsage) (*Buffer, error) {
	var u *Uploader
	defer func() { u.Release() }()
	return d.newBufferFrom(label, data, usage, &u)
}

// newBufferFrom is NewBufferFrom with the Uploader *u (made here when nil and needed, for the
// caller to release): several planes share one ring of staging buffers.
func (d *Device) newBufferFrom(label string, data []byte, usage wgpu.BufferUsage, u **Uploader) (*Buffer, error) {
	b, err := d.NewBuffer(label, uint64(len(data)), usage)
	if err != nil {
		return nil, err
	}
	if len(data) > 4*uploadStaging {
		if *u == nil {
			*u = d.NewUploader("upload", 4)
		}
		if err := (*u).Write(b, 0, data); err != nil {
			b.Release()
			return nil, err
		}
		return b, nil
	}
	for o := 0; o < len(data); o += uploadPiece {
		if err := b.Write(uint64(o), data[o:min(o+uploadPiece, len(data))]); err != nil {
			b.Release()
			return nil, err
		}
	}
	return b, nil
}

// uploadPiece is the most NewBufferFrom writes in one call on the device (a multiple of 4).
const uploadPiece = 4 << 20

// Ensure makes the buffer hold at least size bytes, recreating it (contents lost) only when it
// is too small. recreated tells the caller to rebuild bind groups that reference it.
func (b *Buffer) Ensure(size uint64) (recreated bool, err error) {
	if b == nil || b.dev == nil {
		return false, fmt.Errorf("gpu: buffer: nil buffer")
	}
	alloc := align(size, 4)
	if alloc == 0 {
		alloc = 4
	}
	b.Size = size
	if b.Buf != nil && alloc <= b.Cap {
		return false, nil
	}
	var nb *wgpu.Buffer
	err = b.dev.Do("create buffer "+b.Label, func() error {
		var e error
		nb, e = b.dev.Dev.CreateBuffer(&wgpu.BufferDescriptor{Label: b.Label, Usage: b.Usage, Size: alloc})
		return e
	})
	if err != nil {
		return false, err
	}
	if b.Buf != nil {
		b.Buf.Release()
		b.dev.Held(-int64(b.Cap))
	}
	b.Buf, b.Cap = nb, alloc
	b.dev.Held(int64(alloc))
	return true, nil
}

// Write copies data into the buffer at offset (a multiple of 4); a length that is not a
// multiple of 4 is zero-padded, as WebGPU requires.
func (b *Buffer) Write(offset uint64, data []byte) error {
	if b == nil || b.Buf == nil {
		return fmt.Errorf("gpu: write buffer: nil or released buffer")
	}
	if offset%4 != 0 {
		return fmt.Errorf("gpu: write buffer %s: offset %d not a multiple of 4", b.Label, offset)
	}
	if len(data) == 0 {
		return nil
	}
	if len(data)%4 != 0 {
		padded := make([]byte, align(uint64(len(data)), 4))
		copy(padded, data)
		data = padded
	}
	if offset+uint64(len(data)) > b.Cap {
		return fmt.Errorf("gpu: write buffer %s: %d bytes at %d overflow %d", b.Label, len(data), offset, b.Cap)
	}
	b.dev.counts.writeBytes.Add(int64(len(data)))
	return b.dev.Do("write buffer "+b.Label, func() error {
		return b.dev.Queue.WriteBuffer(b.Buf, offset, data)
	})
}

// Upload sizes the buffer to len(data) (growing only when needed) and writes data at offset 0.
func (b *Buffer) Upload(data []byte) (recreated bool, err error) {
	if recreated, err = b.Ensure(uint64(len(data))); err != nil {
		return recreated, err
	}
	return recreated, b.Write(0, data)
}

// Release frees the GPU buffer. Safe on nil and twice.
func (b *Buffer) Release() {
	if b == nil || b.Buf == nil {
		return
	}
	b.Buf.Release()
	b.Buf = nil
	b.dev.Held(-int64(b.Cap))
	b.Cap = 0
}

func align(v, a uint64) uint64 { return (v + a - 1) / a * a }
