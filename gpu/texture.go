package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// Texture is a labelled 2D texture with its default view. CopySrc and CopyDst are always in its
// usage, so it can be uploaded to and read back.
type Texture struct {
	Label  string
	Width  uint32
	Height uint32
	Format wgpu.TextureFormat
	Usage  wgpu.TextureUsage
	Tex    *wgpu.Texture
	View   *wgpu.TextureView

	dev *Device
}

// BytesPerTexel is the size of one texel of the formats Strata uses (rgba8unorm, r32float,
// rgba32float); other formats are an error.
func BytesPerTexel(f wgpu.TextureFormat) (uint32, error) {
	switch f {
	case wgpu.TextureFormatRGBA8Unorm, wgpu.TextureFormatRGBA8UnormSrgb, wgpu.TextureFormatBGRA8Unorm,
		wgpu.TextureFormatR32Float, wgpu.TextureFormatR32Uint:
		return 4, nil
	case wgpu.TextureFormatRGBA32Float:
		return 16, nil
	}
	return 0, fmt.Errorf("gpu: texture format %s not supported here", f)
}

// NewTexture creates a width×height 2D texture and its view.
func (d *Device) NewTexture(label string, width, height uint32, format wgpu.TextureFormat, usage wgpu.TextureUsage) (*Texture, error) {
	if _, err := BytesPerTexel(format); err != nil {
		return nil, err
	}
	if width == 0 || height == 0 {
		return nil, fmt.Errorf("gpu: texture %s: empty size %dx%d", label, width, height)
	}
	t := &Texture{Label: label, Width: width, Height: height, Format: format,
		Usage: usage | wgpu.TextureUsageCopySrc | wgpu.TextureUsageCopyDst, dev: d}
	err := d.Do("create texture "+label, func() error {
		var e error
		t.Tex, e = d.Dev.CreateTexture(&wgpu.TextureDescriptor{
			Label:         label,
			Usage:         t.Usage,
			Dimension:     wgpu.TextureDimension2D,
			Size:          wgpu.Extent3D{Width: width, Height: height, DepthOrArrayLayers: 1},
			Format:        format,
			MipLevelCount: 1,
			SampleCount:   1,
		})
		if e != nil {
			return e
		}
		t.View, e = t.Tex.CreateView(&wgpu.TextureViewDescriptor{
			Label:           label + " view",
			Format:          format,
			Dimension:       wgpu.TextureViewDimension2D,
			MipLevelCount:   1,
			ArrayLayerCount: 1,
			Aspect:          wgpu.TextureAspectAll,
		})
		return e
	})
	if err != nil {
		t.Release()
		return nil, err
	}
	bpt, _ := BytesPerTexel(format)
	d.Held(int64(width) * int64(height) * int64(bpt))
	return t, nil
}

// Write uploads a whole texture's texels, rows tightly packed, row 0 first.
func (t *Texture) Write(data []byte) error {
	if t == nil || t.Tex == nil {
		return fmt.Errorf("gpu: write texture: nil or released texture")
	}
	bpt, _ := BytesPerTexel(t.Format)
	want := int(t.Width) * int(t.Height) * int(bpt)
	if len(data) != want {
		return fmt.Errorf("gpu: write texture %s: %d bytes, want %d", t.Label, len(data), want)
	}
	return t.dev.Do("write texture "+t.Label, func() error {
		return t.dev.Queue.WriteTexture(t.Tex.AsImageCopy(), data,
			&wgpu.TextureDataLayout{BytesPerRow: t.Width * bpt, RowsPerImage: t.Height},
			&wgpu.Extent3D{Width: t.Width, Height: t.Height, DepthOrArrayLayers: 1})
	})
}

// Release frees the view and the texture. Safe on nil and twice.
func (t *Texture) Release() {
	if t == nil {
		return
	}
	if t.View != nil {
		t.View.Release()
		t.View = nil
	}
	if t.Tex != nil {
		t.Tex.Release()
		t.Tex = nil
		if t.dev != nil {
			bpt, _ := BytesPerTexel(t.Format)
			t.dev.Held(-int64(t.Width) * int64(t.Height) * int64(bpt))
		}
	}
}
