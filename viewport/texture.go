package viewport

import (
	"fmt"
	"image"
	"image/draw"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
)

// texture is a labelled 2D texture with a mip chain, for what gpu.Texture does not cover (mip
// levels, depth, sRGB sampling of the atlas). Release is safe on nil and twice.
type texture struct {
	label  string
	w, h   uint32
	mips   uint32
	format wgpu.TextureFormat
	tex    *wgpu.Texture
	view   *wgpu.TextureView
	// borrowed marks another owner's texture (the weights kernel's target, sampled in place):
	// Release forgets it without freeing it.
	borrowed bool
	// dev and bytes are what Release gives back to the device's count (gpu.Device.Held).
	dev   *gpu.Device
	bytes int64
}

// borrow wraps another owner's texture for binding; Release will not free it.
func borrow(t *gpu.Texture) *texture {
	return &texture{label: t.Label, w: t.Width, h: t.Height, mips: 1, format: t.Format, tex: t.Tex, view: t.View, borrowed: true}
}

func newTexture(d *gpu.Device, label string, w, h, mips uint32, format wgpu.TextureFormat, usage wgpu.TextureUsage) (*texture, error) {
	if w == 0 || h == 0 {
		return nil, fmt.Errorf("viewport: texture %s: empty size %dx%d", label, w, h)
	}
	t := &texture{label: label, w: w, h: h, mips: max(mips, 1), format: format}
	err := d.Do("create texture "+label, func() error {
		var e error
		t.tex, e = d.Dev.CreateTexture(&wgpu.TextureDescriptor{
			Label:         label,
			Usage:         usage,
			Dimension:     wgpu.TextureDimension2D,
			Size:          wgpu.Extent3D{Width: w, Height: h, DepthOrArrayLayers: 1},
			Format:        format,
			MipLevelCount: t.mips,
			SampleCount:   1,
		})
		if e != nil {
			return e
		}
		aspect := wgpu.TextureAspectAll
		if format == wgpu.TextureFormatDepth32Float {
			aspect = wgpu.TextureAspectDepthOnly
		}
		t.view, e = t.tex.CreateView(&wgpu.TextureViewDescriptor{
			Label:           label + " view",
			Format:          format,
			Dimension:       wgpu.TextureViewDimension2D,
			MipLevelCount:   t.mips,
			ArrayLayerCount: 1,
			Aspect:          aspect,
		})
		return e
	})
	if err != nil {
		t.Release()
		return nil, fmt.Errorf("viewport: %w", err)
	}
	bpt := int64(4)
	switch format {
	case wgpu.TextureFormatRGBA32Float:
		bpt = 16
	}
	for l, lw, lh := uint32(0), int64(w), int64(h); l < t.mips; l++ {
		t.bytes += lw * lh * bpt
		lw, lh = max(lw/2, 1), max(lh/2, 1)
	}
	t.dev = d
	d.Held(t.bytes)
	return t, nil
}

// Release frees the view and the texture. Safe on nil and twice.
func (t *texture) Release() {
	if t == nil {
		return
	}
	if t.borrowed {
		t.view, t.tex = nil, nil
		return
	}
	if t.view != nil {
		t.view.Release()
		t.view = nil
	}
	if t.tex != nil {
		t.tex.Release()
		t.tex = nil
		t.dev.Held(-t.bytes)
	}
}

// writeLevel uploads one mip level of 4-byte texels, rows tightly packed.
func (t *texture) writeLevel(d *gpu.Device, level uint32, w, h uint32, data []byte) error {
	return d.Do("write texture "+t.label, func() error {
		return d.Queue.WriteTexture(&wgpu.ImageCopyTexture{Texture: t.tex, MipLevel: level, Aspect: wgpu.TextureAspectAll},
			data, &wgpu.TextureDataLayout{BytesPerRow: 4 * w, RowsPerImage: h},
			&wgpu.Extent3D{Width: w, Height: h, DepthOrArrayLayers: 1})
	})
}

// toRGBA returns img as tightly packed RGBA bytes, row 0 first (image row 0 is the field's minimum
// Z, SPEC "Orientation"). A tightly packed RGBA or NRGBA image is returned over its own bytes,
// not copied: NRGBA bytes are taken as stored, since a control texture's alpha is layer 3's
// weight, not opacity (converting to premultiplied colour would corrupt layers 0–2).
func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	packed := func(stride int, min image.Point, pix []byte) bool {
		return stride == 4*w && min == (image.Point{}) && len(pix) >= 4*w*h
	}
	switch m := img.(type) {
	case *image.RGBA:
		if packed(m.Stride, m.Rect.Min, m.Pix) {
			return m
		}
	case *image.NRGBA:
		if packed(m.Stride, m.Rect.Min, m.Pix) {
			return &image.RGBA{Pix: m.Pix[:4*w*h], Stride: m.Stride, Rect: m.Rect}
		}
		out := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			o := m.PixOffset(b.Min.X, b.Min.Y+y)
			copy(out.Pix[y*out.Stride:(y+1)*out.Stride], m.Pix[o:o+4*w])
		}
		return out
	}
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(m, m.Rect, img, b.Min, draw.Src)
	return m
}

// mipCount is the number of levels down to 1×1.
func mipCount(w, h int) uint32 {
	n := uint32(1)
	for w > 1 || h > 1 {
		w, h = max(w/2, 1), max(h/2, 1)
		n++
	}
	return n
}

// halve box-filters an RGBA image to half size (odd edges clamp).
func halve(src *image.RGBA) *image.RGBA {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	nw, nh := max(w/2, 1), max(h/2, 1)
	dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			for c := 0; c < 4; c++ {
				var s int
				for k := 0; k < 4; k++ {
					sx, sy := min(2*x+k%2, w-1), min(2*y+k/2, h-1)
					s += int(src.Pix[sy*src.Stride+4*sx+c])
				}
				dst.Pix[y*dst.Stride+4*x+c] = uint8((s + 2) / 4)
			}
		}
	}
	return dst
}

// imageTexture uploads img (converted to RGBA8) as a sampled texture, with a full box-filtered
// mip chain when mips is set.
func imageTexture(d *gpu.Device, label string, img image.Image, format wgpu.TextureFormat, mips bool) (*texture, error) {
	m := toRGBA(img)
	w, h := m.Rect.Dx(), m.Rect.Dy()
	levels := uint32(1)
	if mips {
		levels = mipCount(w, h)
	}
	t, err := newTexture(d, label, uint32(w), uint32(h), levels, format,
		wgpu.TextureUsageTextureBinding|wgpu.TextureUsageCopyDst)
	if err != nil {
		return nil, err
	}
	for l := uint32(0); l < levels; l++ {
		if l > 0 {
			m = halve(m)
		}
		if err := t.writeLevel(d, l, uint32(m.Rect.Dx()), uint32(m.Rect.Dy()), m.Pix); err != nil {
			t.Release()
			return nil, fmt.Errorf("viewport: %w", err)
		}
	}
	return t, nil
}

// solidTexture is a 1×1 texture of one colour: the default for a missing control or atlas.
func solidTexture(d *gpu.Device, label string, c [4]uint8, format wgpu.TextureFormat) (*texture, error) {
	m := image.NewRGBA(image.Rect(0, 0, 1, 1))
	copy(m.Pix, c[:])
	return imageTexture(d, label, m, format, false)
}
