package viewport

import (
	"context"
	"fmt"
	"image"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
	"strata/internal/pool"
)

// Incremental updates for the editor: a re-evaluated tile changes the control textures, a brush
// stroke or a reloaded source changes a rectangle of height, a re-run scatter changes the pools,
// a tint or tiling edit changes the layer table. None of them uploads the whole scene again.

// UpdateControls replaces stored control texture i (0 or 1) of the current scene: the weights
// pyramid's pages are filled from it again. Another size than the weights grid's starts the
// pyramid afresh.
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
	if err := r.storedControls(m.Rect.Dx(), m.Rect.Dy()); err != nil {
		return err
	}
	r.terrain.controls[i] = m
	r.scene.Controls[i] = img
	r.dropStored(0, 0, m.Rect.Dx(), m.Rect.Dy())
	return nil
}

// UpdateControlsRect writes the texels of rect (weights texels) of stored control texture i; pix
// holds rect's RGBA bytes, rows tightly packed. The control is made w×h, the whole weights grid,
// when it is not already (its other texels are then zero until written).
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
	if err := r.storedControls(w, h); err != nil {
		return err
	}
	t := r.terrain
	c := t.controls[i]
	if c == nil || c.Rect.Dx() != w || c.Rect.Dy() != h {
		c = image.NewRGBA(image.Rect(0, 0, w, h))
		t.controls[i] = c
	}
	for j := 0; j < rect.Dy(); j++ {
		copy(c.Pix[c.PixOffset(rect.Min.X, rect.Min.Y+j):], pix[4*j*rect.Dx():4*(j+1)*rect.Dx()])
	}
	r.scene.Controls[i] = c
	r.dropStored(rect.Min.X, rect.Min.Y, rect.Max.X, rect.Max.Y)
	return nil
}

// storedControls makes the weights pyramid that of a w×h grid of stored controls, shown as
// generation 0 (a new size starts it afresh). r.mu is held.
func (r *Renderer) storedControls(w, h int) error {
	t := r.terrain
	if t.wgrid != [2]int{w, h} {
		nv, err := newVtex(r.dev, "viewport weights", w, h, 1, r.slotsWithin(weightSlots, weightsBudgetShare, slotBytes(8)),
			[]wgpu.TextureFormat{wgpu.TextureFormatRGBA8Unorm, wgpu.TextureFormatRGBA8Unorm}, wgpu.TextureUsageStorageBinding)
		if err != nil {
			return err
		}
		t.wvt.Release()
		t.wvt, t.wgrid, t.controls = nv, [2]int{w, h}, [2]*image.RGBA{}
		r.atlasTarget = nil
		if err := t.rebind(r.dev, r.frameBuf); err != nil {
			return err
		}
	}
	t.wvt.show(0)
	return nil
}

// dropStored forgets the stored weights' pages over level-0 texels [x0, x1) × [z0, z1). r.mu is held.
func (r *Renderer) dropStored(x0, z0, x1, z1 int) {
	for _, key := range pagesOver(r.terrain.wvt.pyr, x0, z0, x1, z1) {
		r.terrain.wvt.drop(key, 0)
	}
	r.dirty = true
}

// UpdateHeight copies data — rect's texels of the rgba32f height payload (R metres, G dh/dx,
// B dh/dz, A coverage), rows tightly packed — into the scene's in-memory Height under the
// renderer's lock (so Pick never reads a half-written rectangle) and shows it (HeightChanged).
// rect is in height texels and must lie inside the grid.
func (r *Renderer) UpdateHeight(rect image.Rectangle, data []float32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: update height: no scene")
	}
	if r.scene.Ground != nil {
		return fmt.Errorf("viewport: update height: the scene's ground is a source: change it and call HeightChanged")
	}
	hf := &r.scene.Height
	if rect.Empty() || !rect.In(image.Rect(0, 0, hf.W, hf.H)) || len(data) != 4*rect.Dx()*rect.Dy() {
		return fmt.Errorf("viewport: update height: rect %v of a %dx%d grid with %d floats", rect, hf.W, hf.H, len(data))
	}
	w, h := rect.Dx(), rect.Dy()
	for j := 0; j < h; j++ {
		copy(hf.Data[4*((rect.Min.Y+j)*hf.W+rect.Min.X):], data[4*j*w:4*(j+1)*w])
	}
	hf.written()
	r.heightChanged(rect)
	return nil
}

// HeightChanged says the scene's ground changed in rect (height texels: heights, holes or
// both): the height pages that show it are read again, and the level-of-detail tree there is
// rebuilt (only the nodes over rect and their ancestors).
func (r *Renderer) HeightChanged(rect image.Rectangle) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene != nil {
		r.heightChanged(rect)
	}
}

// heightChanged is HeightChanged with r.mu held.
func (r *Renderer) heightChanged(rect image.Rectangle) {
	src := r.scene.ground()
	w, h := src.GridSize()
	// A changed height moves the gradient of its neighbours too.
	rect = rect.Inset(-1).Intersect(image.Rect(0, 0, w, h))
	if rect.Empty() {
		return
	}
	for _, key := range pagesOver(r.terrain.hvt.pyr, rect.Min.X, rect.Min.Y, rect.Max.X, rect.Max.Y) {
		r.terrain.hvt.drop(key, 0)
	}
	src.Lock()
	r.terrain.tree.update(src, rect.Min.X, rect.Min.Y, rect.Max.X, rect.Max.Y)
	src.Unlock()
	r.setBounds()
	r.sampler = newHeightSampler(r.scene)
	r.dirty = true
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
	return r.setGrid(OverlayDensity, buf, w, h, values, max)
}

// SetOverlayGrid binds the host grid of a grid overlay other than density (OverlayAspect:
// degrees, < 0 flat; OverlayFlow: log10 m²), w×h values with row 0 at minimum Z, usually on the
// weights grid. A grid larger than an overlay keeps is reduced as the mode says (aspect: a
// circular mean; flow: a box mean of the logs). The grid
// stays bound until another grid replaces it; SetOverlayGrid(mode, 0, 0, nil) unbinds it.
func (r *Renderer) SetOverlayGrid(mode OverlayMode, w, h int, values []float32) error {
	if _, ok := gridModes[mode]; !ok || mode == OverlayDensity {
		return fmt.Errorf("viewport: set overlay grid: mode %d draws no host grid of its own (density: SetDensity)", mode)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.setGrid(mode, nil, w, h, values, 0)
}

// setGrid binds the grid of a grid overlay (SetDensity's work, for any of gridModes). r.mu is held.
func (r *Renderer) setGrid(mode OverlayMode, buf *gpu.Buffer, w, h int, values []float32, max float32) error {
	t := r.terrain
	what := "density"
	if mode != OverlayDensity {
		what = "overlay grid"
	}
	limit := r.dev.Limits.MaxStorageBufferBindingSize
	target, has := t.ownDensity, false
	switch {
	case buf != nil:
		if buf.Buf == nil || buf.Size < uint64(16+4*w*h) || w < 1 || h < 1 {
			return fmt.Errorf("viewport: set %s: a %dx%d grid does not fit the buffer", what, w, h)
		}
		if need := uint64(16 + 4*w*h); limit > 0 && need > limit {
			return fmt.Errorf("viewport: set %s: a %dx%d grid (%d MiB) is past the device's storage binding (%d MiB)", what, w, h, need>>20, limit>>20)
		}
		target, has = buf, true
		t.overlayGrid = nil
	case values != nil:
		if w < 1 || h < 1 || len(values) != w*h {
			return fmt.Errorf("viewport: set %s: %d values for %dx%d", what, len(values), w, h)
		}
		if k := overlayFactor(w, h, limit); k > 1 {
			t.overlayGrid, w, h = gridModes[mode].reduce(t.overlayGrid, values, w, h, k)
			values = t.overlayGrid
		} else {
			t.overlayGrid = nil
		}
		// The header, then the values as they are (no copy of a grid that fits).
		if _, err := t.ownDensity.Ensure(uint64(16 + 4*len(values))); err != nil {
			return fmt.Errorf("viewport: %w", err)
		}
		if err := t.ownDensity.Write(0, wgpu.ToBytes([]uint32{math.Float32bits(max), uint32(w), uint32(h), 0})); err != nil {
			return fmt.Errorf("viewport: %w", err)
		}
		if err := t.ownDensity.Write(16, wgpu.ToBytes(values)); err != nil {
			return fmt.Errorf("viewport: %w", err)
		}
		has = true
	}
	if !has {
		t.overlayGrid = nil
	}
	t.density, t.hasDensity, t.densityMax, t.gridMode = target, has, max, mode
	r.dirty = true
	if err := t.rebind(r.dev, r.frameBuf); err != nil {
		// The ground stays drawn, without the overlay.
		t.density, t.hasDensity = t.ownDensity, false
		if e := t.rebind(r.dev, r.frameBuf); e != nil {
			return fmt.Errorf("viewport: set %s: %w (and without the overlay: %v)", what, err, e)
		}
		return err
	}
	return nil
}

// overlaySide is the most texels an overlay grid keeps along a side. A larger one (the mask or
// the density of an 8K field: 256 MiB, past a software device's 128 MiB storage binding) is
// shown box-filtered by the smallest integer factor that brings it within this and within the
// device's binding: the overlay is read once per pixel, and 4096 texels across are finer than
// any view of the whole field.
const overlaySide = 4096

// overlayFactor is the factor a w×h overlay grid is box-filtered by (1: none).
func overlayFactor(w, h int, limit uint64) int {
	k := 1
	for {
		ow, oh := (w+k-1)/k, (h+k-1)/k
		if ow <= overlaySide && oh <= overlaySide && (limit == 0 || uint64(16+4*ow*oh) <= limit) {
			return k
		}
		k++
	}
}

// boxMean is the w×h grid values reduced by k along each axis: each texel the mean of the k×k
// block it covers (the blocks at the far edges clipped to the grid). It writes into dst's
// storage when that is large enough: an overlay repainted on every stroke reuses one grid, where
// a fresh 64 MiB one costs more in page faults than the reduction itself.
func boxMean(dst, values []float32, w, h, k int) ([]float32, int, int) {
	ow, oh := (w+k-1)/k, (h+k-1)/k
	out := dst[:0]
	if cap(out) < ow*oh {
		out = make([]float32, ow*oh)
	}
	out = out[:ow*oh]
	full := w / k // blocks of k texels; the last (w%k) is clipped
	pool.Each(context.Background(), oh, 0, func(j int) {
		row := out[j*ow : (j+1)*ow]
		clear(row)
		y1 := min((j+1)*k, h)
		for y := j * k; y < y1; y++ {
			src := values[y*w : (y+1)*w]
			for i := range full {
				var s float32
				for _, v := range src[i*k : i*k+k] {
					s += v
				}
				row[i] += s
			}
			for _, v := range src[full*k:] {
				row[ow-1] += v
			}
		}
		n := float32(y1 - j*k)
		inv := 1 / (n * float32(k))
		for i := range row[:full] {
			row[i] *= inv
		}
		if full < ow {
			row[ow-1] /= n * float32(w-full*k)
		}
	}, nil)
	return out, ow, oh
}

// circularMean is boxMean for a grid of compass directions in degrees (OverlayAspect): each texel
// the direction of the mean unit vector of its block's defined texels (≥ 0), or −1 (flat) where
// at least half the block is flat (< 0 or NaN) or the directions cancel. An arithmetic mean of
// 350° and 10° would be 180°: the opposite face.
func circularMean(dst, values []float32, w, h, k int) ([]float32, int, int) {
	ow, oh := (w+k-1)/k, (h+k-1)/k
	out := dst[:0]
	if cap(out) < ow*oh {
		out = make([]float32, ow*oh)
	}
	out = out[:ow*oh]
	const rad = math.Pi / 180
	pool.Each(context.Background(), oh, 0, func(j int) {
		y1 := min((j+1)*k, h)
		for i := range ow {
			x1 := min((i+1)*k, w)
			var sx, sz float64
			flat, n := 0, 0
			for y := j * k; y < y1; y++ {
				for _, v := range values[y*w+i*k : y*w+x1] {
					n++
					if !(v >= 0) {
						flat++
						continue
					}
					s, c := math.Sincos(float64(v) * rad)
					sx, sz = sx+s, sz+c
				}
			}
			a := float32(-1)
			if 2*flat < n && (sx != 0 || sz != 0) {
				a = float32(math.Atan2(sx, sz) / rad)
				if a < 0 {
					a += 360
				}
			}
			out[j*ow+i] = a
		}
	}, nil)
	return out, ow, oh
}

// SetPopulations replaces the scene's populations (new pools after a scatter run) without
// touching the terrain.
func (r *Renderer) SetPopulations(pops []Population) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: set populations: no scene")
	}
	if err := validatePopulations(pops); err != nil {
		return err
	}
	if err := r.inst.setPopulations(r.dev, pops); err != nil {
		return err
	}
	r.scene.Populations = pops
	r.dirty = true
	return nil
}
