package viewport

import (
	"fmt"
	"image"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
)

// Incremental updates for the editor: a re-evaluated tile changes the control textures, a brush
// stroke or a reloaded source changes a rectangle of height, a re-run scatter changes the pools,
// a tint or tiling edit changes the layer table. None of them uploads the whole scene again.

// UpdateControls replaces control texture i (0 or 1) of the current scene. A texture of the same
// size is written in place; another size (or a borrowed texture) is replaced by the renderer's own.
func (r *Renderer) UpdateControls(i int, img image.Image) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: update controls: no scene")
	}
	if i < 0 || i > 1 {
		return fmt.Errorf("viewport: update controls: index %d, want 0 or 1", i)
	}
	if img == nil || img.Bounds().Empty() {
		return fmt.Errorf("viewport: update controls %d: empty image", i)
	}
	m := toRGBA(img)
	w, h := m.Rect.Dx(), m.Rect.Dy()
	if err := r.ownControl(i, w, h); err != nil {
		return err
	}
	if err := r.terrain.controls[i].writeLevel(r.dev, 0, uint32(w), uint32(h), m.Pix); err != nil {
		return fmt.Errorf("viewport: update controls %d: %w", i, err)
	}
	r.terrain.wgrid = [2]int{w, h}
	r.scene.Controls[i] = img
	r.dirty = true
	return nil
}

// UpdateControlsRect writes the texels of rect (weights texels) of control texture i; pix holds
// rect's RGBA bytes, rows tightly packed. The texture is (re)made w×h, the whole weights grid,
// when it is not already the renderer's own of that size (its other texels are then zero until
// written). The editor's Go evaluator sends each re-evaluated tile this way.
func (r *Renderer) UpdateControlsRect(i, w, h int, rect image.Rectangle, pix []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: update controls: no scene")
	}
	if i < 0 || i > 1 {
		return fmt.Errorf("viewport: update controls: index %d, want 0 or 1", i)
	}
	if rect.Empty() || !rect.In(image.Rect(0, 0, w, h)) || len(pix) != 4*rect.Dx()*rect.Dy() {
		return fmt.Errorf("viewport: update controls %d: rect %v of a %dx%d grid with %d bytes", i, rect, w, h, len(pix))
	}
	if err := r.ownControl(i, w, h); err != nil {
		return err
	}
	t := r.terrain.controls[i]
	err := r.dev.Do("write "+t.label, func() error {
		return r.dev.Queue.WriteTexture(&wgpu.ImageCopyTexture{Texture: t.tex, Aspect: wgpu.TextureAspectAll,
			Origin: wgpu.Origin3D{X: uint32(rect.Min.X), Y: uint32(rect.Min.Y)}},
			pix, &wgpu.TextureDataLayout{BytesPerRow: uint32(4 * rect.Dx()), RowsPerImage: uint32(rect.Dy())},
			&wgpu.Extent3D{Width: uint32(rect.Dx()), Height: uint32(rect.Dy()), DepthOrArrayLayers: 1})
	})
	if err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	r.terrain.wgrid = [2]int{w, h}
	r.scene.Controls[i] = nil // the texture, not an image, is the truth now
	r.dirty = true
	return nil
}

// ownControl makes control texture i the renderer's own w×h texture, keeping it when it already is.
func (r *Renderer) ownControl(i, w, h int) error {
	t := r.terrain
	if old := t.controls[i]; old != nil && !old.borrowed && old.w == uint32(w) && old.h == uint32(h) {
		return nil
	}
	nt, err := newTexture(r.dev, fmt.Sprintf("viewport control %d", i), uint32(w), uint32(h), 1,
		wgpu.TextureFormatRGBA8Unorm, wgpu.TextureUsageTextureBinding|wgpu.TextureUsageCopyDst)
	if err != nil {
		return err
	}
	t.controls[i].Release()
	t.controls[i] = nt
	return t.rebind(r.dev, r.frameBuf)
}

// SetControlTextures makes the terrain sample lo (layers 0–3) and hi (layers 4–7) where they are:
// the weights kernel's target, so an evaluation reaches the screen with no copy through the CPU.
// The textures are borrowed: the caller keeps them alive while they are bound and releases them
// after binding others (or the renderer's own again through UpdateControls).
func (r *Renderer) SetControlTextures(lo, hi *gpu.Texture) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: set control textures: no scene")
	}
	if lo == nil || hi == nil || lo.Tex == nil || hi.Tex == nil {
		return fmt.Errorf("viewport: set control textures: nil or released texture")
	}
	if lo.Width != hi.Width || lo.Height != hi.Height {
		return fmt.Errorf("viewport: set control textures: %dx%d and %dx%d differ", lo.Width, lo.Height, hi.Width, hi.Height)
	}
	t := r.terrain
	if c := t.controls; c[0] != nil && c[0].tex == lo.Tex && c[1] != nil && c[1].tex == hi.Tex {
		r.dirty = true // same textures, new contents
		return nil
	}
	for i, g := range []*gpu.Texture{lo, hi} {
		t.controls[i].Release()
		t.controls[i] = borrow(g)
		r.scene.Controls[i] = nil
	}
	t.wgrid = [2]int{int(lo.Width), int(lo.Height)}
	r.dirty = true
	return t.rebind(r.dev, r.frameBuf)
}

// UpdateHeight copies data — rect's texels of the rgba32f height payload (R metres, G dh/dx,
// B dh/dz, A coverage), rows tightly packed — into the scene under the renderer's lock (so Pick
// never reads a half-written rectangle), uploads them, and rebuilds the level-of-detail tree when
// a height (not only a coverage) changed. rect is in height texels and must lie inside the grid.
func (r *Renderer) UpdateHeight(rect image.Rectangle, data []float32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: update height: no scene")
	}
	hf := &r.scene.Height
	if rect.Empty() || !rect.In(image.Rect(0, 0, hf.W, hf.H)) || len(data) != 4*rect.Dx()*rect.Dy() {
		return fmt.Errorf("viewport: update height: rect %v of a %dx%d grid with %d floats", rect, hf.W, hf.H, len(data))
	}
	w, h := rect.Dx(), rect.Dy()
	heightsMoved := false
	for j := 0; j < h; j++ {
		dst := hf.Data[4*((rect.Min.Y+j)*hf.W+rect.Min.X) : 4*((rect.Min.Y+j)*hf.W+rect.Max.X)]
		src := data[4*j*w : 4*(j+1)*w]
		for k := 0; k < len(src) && !heightsMoved; k += 4 {
			heightsMoved = dst[k] != src[k]
		}
		copy(dst, src)
	}
	tex := r.terrain.height
	err := r.dev.Do("update height", func() error {
		return r.dev.Queue.WriteTexture(&wgpu.ImageCopyTexture{Texture: tex.Tex, Aspect: wgpu.TextureAspectAll,
			Origin: wgpu.Origin3D{X: uint32(rect.Min.X), Y: uint32(rect.Min.Y)}},
			wgpu.ToBytes(data), &wgpu.TextureDataLayout{BytesPerRow: uint32(16 * w), RowsPerImage: uint32(h)},
			&wgpu.Extent3D{Width: uint32(w), Height: uint32(h), DepthOrArrayLayers: 1})
	})
	if err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	if heightsMoved {
		r.terrain.tree = newLODTree(hf)
		if t := r.terrain.tree; t.minH[0][0] <= t.maxH[0][0] {
			r.bounds.min[1] = min(r.bounds.min[1], float64(t.minH[0][0])-1)
			r.bounds.max[1] = max(r.bounds.max[1], float64(t.maxH[0][0])+10)
		}
	}
	r.sampler = newHeightSampler(r.scene)
	r.dirty = true
	return nil
}

// SetLayers replaces the layer table (tints, tiling, textured flags): a tint or tiling edit
// reaches the screen without touching weights or textures.
func (r *Renderer) SetLayers(layers []Layer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: set layers: no scene")
	}
	if len(layers) > 8 {
		return fmt.Errorf("viewport: set layers: %d layers, at most 8", len(layers))
	}
	if err := r.terrain.layers.Write(0, wgpu.ToBytes(packLayers(layers))); err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	r.scene.Layers = append([]Layer(nil), layers...)
	r.terrain.nLayers = len(layers)
	r.dirty = true
	return nil
}

// SetAtlas replaces the atlas sheets (a layer's texture changed); nil draws every layer in its tint.
func (r *Renderer) SetAtlas(a *Atlas) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: set atlas: no scene")
	}
	t := r.terrain
	albedo, normal, has, err := atlasTextures(r.dev, a)
	if err != nil {
		return err
	}
	t.albedo.Release()
	t.normal.Release()
	t.albedo, t.normal, t.hasAtlas = albedo, normal, has
	r.scene.Atlas = a
	r.dirty = true
	return t.rebind(r.dev, r.frameBuf)
}

// SetDensity binds a population's density grid for OverlayDensity. buf, when not nil, is the
// scatter kernel's density buffer (borrowed, drawn where it is: header max, w, h, 0, then w×h
// f32); otherwise values (w×h, row 0 at minimum Z) are uploaded. max is the density at full
// colour when the overlay gives none. SetDensity(nil, 0, 0, nil, 0) unbinds it.
func (r *Renderer) SetDensity(buf *gpu.Buffer, w, h int, values []float32, max float32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.terrain
	t.hasDensity, t.densityMax = false, max
	target := t.ownDensity
	switch {
	case buf != nil:
		if buf.Buf == nil || buf.Size < uint64(16+4*w*h) || w < 1 || h < 1 {
			return fmt.Errorf("viewport: set density: a %dx%d grid does not fit the buffer", w, h)
		}
		target = buf
		t.hasDensity = true
	case values != nil:
		if w < 1 || h < 1 || len(values) != w*h {
			return fmt.Errorf("viewport: set density: %d values for %dx%d", len(values), w, h)
		}
		// The header, then the values as they are (no copy of a grid that may be 16 MiB).
		if _, err := t.ownDensity.Ensure(uint64(16 + 4*len(values))); err != nil {
			return fmt.Errorf("viewport: %w", err)
		}
		if err := t.ownDensity.Write(0, wgpu.ToBytes([]uint32{math.Float32bits(max), uint32(w), uint32(h), 0})); err != nil {
			return fmt.Errorf("viewport: %w", err)
		}
		if err := t.ownDensity.Write(16, wgpu.ToBytes(values)); err != nil {
			return fmt.Errorf("viewport: %w", err)
		}
		t.hasDensity = true
	}
	t.density = target
	r.dirty = true
	return t.rebind(r.dev, r.frameBuf)
}

// SetPopulations replaces the scene's populations (new pools after a scatter run) without
// touching the terrain.
func (r *Renderer) SetPopulations(pops []Population) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: set populations: no scene")
	}
	s := *r.scene
	s.Populations = pops
	if err := s.Validate(); err != nil {
		return err
	}
	if err := r.inst.setScene(r.dev, &s); err != nil {
		return err
	}
	r.scene.Populations = pops
	r.dirty = true
	return nil
}
