package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// ReadBuffer copies size bytes at offset of src back to the CPU. It copies into a grow-only
// staging buffer and maps that through the C shim (never Buffer.MapAsync, whose callback handle
// the garbage collector can invalidate). offset and size must be multiples of 4.
func (d *Device) ReadBuffer(src *Buffer, offset, size uint64) ([]byte, error) {
	if src == nil || src.Buf == nil {
		return nil, fmt.Errorf("gpu: read buffer: nil or released buffer")
	}
	if offset%4 != 0 || size%4 != 0 {
		return nil, fmt.Errorf("gpu: read buffer %s: offset %d and size %d must be multiples of 4", src.Label, offset, size)
	}
	if offset+size > src.Cap {
		return nil, fmt.Errorf("gpu: read buffer %s: %d bytes at %d overflow %d", src.Label, size, offset, src.Cap)
	}
	out := make([]byte, size)
	if size == 0 {
		return out, nil
	}
	d.readMu.Lock()
	defer d.readMu.Unlock()
	staging, err := d.stagingFor(size)
	if err != nil {
		return nil, err
	}
	err = d.Submit("read buffer "+src.Label, func(enc *wgpu.CommandEncoder) error {
		return enc.CopyBufferToBuffer(src.Buf, offset, staging.Buf, 0, size)
	})
	if err != nil {
		return nil, err
	}
	if err := d.mapStaging(staging, size, out); err != nil {
		return nil, fmt.Errorf("gpu: read buffer %s: %w", src.Label, err)
	}
	return out, nil
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
	row := uint64(t.Width) * uint64(bpt)
	padded := align(row, 256)
	size := padded * uint64(t.Height)
	d.readMu.Lock()
	defer d.readMu.Unlock()
	staging, err := d.stagingFor(size)
	if err != nil {
		return nil, err
	}
	err = d.Submit("read texture "+t.Label, func(enc *wgpu.CommandEncoder) error {
		return enc.CopyTextureToBuffer(t.Tex.AsImageCopy(),
			&wgpu.ImageCopyBuffer{Buffer: staging.Buf, Layout: wgpu.TextureDataLayout{BytesPerRow: uint32(padded), RowsPerImage: t.Height}},
			&wgpu.Extent3D{Width: t.Width, Height: t.Height, DepthOrArrayLayers: 1})
	})
	if err != nil {
		return nil, err
	}
	raw := make([]byte, size)
	if err := d.mapStaging(staging, size, raw); err != nil {
		return nil, fmt.Errorf("gpu: read texture %s: %w", t.Label, err)
	}
	if padded == row {
		return raw, nil
	}
	out := make([]byte, row*uint64(t.Height))
	for y := uint64(0); y < uint64(t.Height); y++ {
		copy(out[y*row:(y+1)*row], raw[y*padded:y*padded+row])
	}
	return out, nil
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

// mapStaging maps the first size bytes of staging into dst through the shim. readMu held.
func (d *Device) mapStaging(staging *Buffer, size uint64, dst []byte) error {
	d.scopeMu.Lock()
	defer d.scopeMu.Unlock()
	scope, err := newErrSink()
	if err != nil {
		return err
	}
	defer scope.free()
	err = mapRead(d.raw, rawBuffer(staging.Buf), 0, size, dst, scope)
	if typ, msg, n := scope.take(); n > 0 {
		werr := &wgpu.Error{Type: typ, Message: msg}
		if err == nil {
			return werr
		}
		return fmt.Errorf("%w; %w", err, werr)
	}
	return err
}
