package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// rowLayout says how mapRead copies out of the mapped staging range: rows of row bytes, srcStride
// apart there and dstStride apart in the destination.
type rowLayout struct{ rows, row, srcStride, dstStride uint64 }

// ReadBuffer copies size bytes at offset of src back to the CPU. It copies into a grow-only
// staging buffer and maps that through the C shim (never Buffer.MapAsync, whose callback handle
// the garbage collector can invalidate). offset and size must be multiples of 4.
func (d *Device) ReadBuffer(src *Buffer, offset, size uint64) ([]byte, error) {
	out := make([]byte, size)
	if err := d.ReadBufferRows(src, offset, 1, size, out, size); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadBufferRows copies rows×row bytes starting at offset of src (rows packed in the buffer) into
// dst, row y at dst[y·stride:]: a band of a grid goes straight into its place in the whole grid,
// without an intermediate copy. offset and row must be multiples of 4.
func (d *Device) ReadBufferRows(src *Buffer, offset, rows, row uint64, dst []byte, stride uint64) error {
	if src == nil || src.Buf == nil {
		return fmt.Errorf("gpu: read buffer: nil or released buffer")
	}
	size := rows * row
	if offset%4 != 0 || row%4 != 0 {
		return fmt.Errorf("gpu: read buffer %s: offset %d and row %d must be multiples of 4", src.Label, offset, row)
	}
	if offset+size > src.Cap {
		return fmt.Errorf("gpu: read buffer %s: %d bytes at %d overflow %d", src.Label, size, offset, src.Cap)
	}
	if size == 0 {
		return nil
	}
	if stride < row || (rows-1)*stride+row > uint64(len(dst)) {
		return fmt.Errorf("gpu: read buffer %s: %d rows of %d bytes, %d apart, do not fit %d bytes", src.Label, rows, row, stride, len(dst))
	}
	d.readMu.Lock()
	defer d.readMu.Unlock()
	staging, err := d.stagingFor(size)
	if err != nil {
		return err
	}
	err = d.Submit("read buffer "+src.Label, func(enc *wgpu.CommandEncoder) error {
		return enc.CopyBufferToBuffer(src.Buf, offset, staging.Buf, 0, size)
	})
	if err != nil {
		return err
	}
	if err := d.mapStaging(staging, size, rowLayout{rows, row, row, stride}, dst); err != nil {
		return fmt.Errorf("gpu: read buffer %s: %w", src.Label, err)
	}
	return nil
}

// ReadTexture copies a whole texture back to the CPU, rows tightly packed (the 256-byte row
// alignment of the copy is stripped), row 0 first.
func (d *Device) ReadTexture(t *Texture) ([]byte, error) {
	if t == nil || t.Tex == nil {
		return nil, fmt.Errorf("gpu: read texture: nil or released texture")
	}
	bpt, err := BytesPerTexel(t.Format)
	if err != nil {
		return nil, err
	}
	row := int(t.Width) * int(bpt)
	out := make([]byte, row*int(t.Height))
	if err := d.ReadTextureInto(t, out, row); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadTextureInto copies a whole texture back into dst: row y goes to dst[y·stride:], tightly
// (the copy's 256-byte row alignment is stripped while copying out of the mapped staging
// buffer). A band-sized texture of a bake lands straight in its place in the whole image.
func (d *Device) ReadTextureInto(t *Texture, dst []byte, stride int) error {
	if t == nil || t.Tex == nil {
		return fmt.Errorf("gpu: read texture: nil or released texture")
	}
	bpt, err := BytesPerTexel(t.Format)
	if err != nil {
		return err
	}
	row := uint64(t.Width) * uint64(bpt)
	if stride < int(row) || uint64(t.Height-1)*uint64(stride)+row > uint64(len(dst)) {
		return fmt.Errorf("gpu: read texture %s: %dx%d does not fit %d bytes with rows %d apart", t.Label, t.Width, t.Height, len(dst), stride)
	}
	padded := align(row, 256)
	size := padded * uint64(t.Height)
	d.readMu.Lock()
	defer d.readMu.Unlock()
	staging, err := d.stagingFor(size)
	if err != nil {
		return err
	}
	err = d.Submit("read texture "+t.Label, func(enc *wgpu.CommandEncoder) error {
		return enc.CopyTextureToBuffer(t.Tex.AsImageCopy(),
			&wgpu.ImageCopyBuffer{Buffer: staging.Buf, Layout: wgpu.TextureDataLayout{BytesPerRow: uint32(padded), RowsPerImage: t.Height}},
			&wgpu.Extent3D{Width: t.Width, Height: t.Height, DepthOrArrayLayers: 1})
	})
	if err != nil {
		return err
	}
	if err := d.mapStaging(staging, size, rowLayout{uint64(t.Height), row, padded, uint64(stride)}, dst); err != nil {
		return fmt.Errorf("gpu: read texture %s: %w", t.Label, err)
	}
	return nil
}

// stagingFor returns the device's MapRead staging buffer, grown to hold size bytes. readMu held.
func (d *Device) stagingFor(size uint64) (*Buffer, error) {
	if d.staging == nil {
		b, err := d.NewBuffer("strata readback staging", size, wgpu.BufferUsageMapRead)
		if err != nil {
			return nil, err
		}
		d.staging = b
		return b, nil
	}
	if _, err := d.staging.Ensure(size); err != nil {
		return nil, err
	}
	return d.staging, nil
}

// mapStaging maps the first size bytes of staging and copies them out into dst as l says,
// through the shim. readMu held.
func (d *Device) mapStaging(staging *Buffer, size uint64, l rowLayout, dst []byte) error {
	d.scopeMu.Lock()
	defer d.scopeMu.Unlock()
	scope, err := newErrSink()
	if err != nil {
		return err
	}
	defer scope.free()
	err = mapRead(d.raw, rawBuffer(staging.Buf), 0, size, l, dst, scope)
	if typ, msg, n := scope.take(); n > 0 {
		werr := &wgpu.Error{Type: typ, Message: msg}
		if err == nil {
			return werr
		}
		return fmt.Errorf("%w; %w", err, werr)
	}
	return err
}
