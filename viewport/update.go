package viewport

import (
	"fmt"
	"image"

	"github.com/cogentcore/webgpu/wgpu"
)

// Incremental updates for the editor: a re-baked tile changes the control textures, a brush
// stroke changes a rectangle of height, a re-run scatter changes the pools. None of them needs
// the whole scene uploaded again.

// UpdateControls replaces control texture i (0 or 1) of the current scene. A texture of the same
// size is written in place; another size recreates it.
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
	t := r.terrain
	m := toRGBA(img)
	w, h := m.Rect.Dx(), m.Rect.Dy()
	if old := t.controls[i]; old != nil && old.w == uint32(w) && old.h == uint32(h) {
		if err := old.writeLevel(r.dev, 0, uint32(w), uint32(h), m.Pix); err != nil {
			return fmt.Errorf("viewport: update controls %d: %w", i, err)
		}
	} else {
		nt, err := imageTexture(r.dev, fmt.Sprintf("viewport control %d", i), m, wgpu.TextureFormatRGBA8Unorm, false)
		if err != nil {
			return err
		}
		old.Release()
		t.controls[i] = nt
		if err := t.rebind(r.dev, r.frameBuf); err != nil {
			return err
		}
	}
	r.scene.Controls[i] = img
	r.dirty = true
	return nil
}

// UpdateHeight re-uploads the texels of rect (in height-grid texels) from the current scene's
// Height.Data, which the caller has changed in place, and rebuilds the level-of-detail tree.
func (r *Renderer) UpdateHeight(rect image.Rectangle) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: update height: no scene")
	}
	hf := &r.scene.Height
	rect = rect.Intersect(image.Rect(0, 0, hf.W, hf.H))
	if rect.Empty() {
		return nil
	}
	w, h := rect.Dx(), rect.Dy()
	buf := make([]float32, 0, 4*w*h)
	for j := rect.Min.Y; j < rect.Max.Y; j++ {
		o := 4 * (j*hf.W + rect.Min.X)
		buf = append(buf, hf.Data[o:o+4*w]...)
	}
	tex := r.terrain.height
	err := r.dev.Do("update height", func() error {
		return r.dev.Queue.WriteTexture(&wgpu.ImageCopyTexture{Texture: tex.Tex, Aspect: wgpu.TextureAspectAll,
			Origin: wgpu.Origin3D{X: uint32(rect.Min.X), Y: uint32(rect.Min.Y)}},
			wgpu.ToBytes(buf), &wgpu.TextureDataLayout{BytesPerRow: uint32(16 * w), RowsPerImage: uint32(h)},
			&wgpu.Extent3D{Width: uint32(w), Height: uint32(h), DepthOrArrayLayers: 1})
	})
	if err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	r.terrain.tree = newLODTree(hf)
	r.sampler = newHeightSampler(r.scene)
	if t := r.terrain.tree; t.minH[0][0] <= t.maxH[0][0] {
		r.bounds.min[1] = min(r.bounds.min[1], float64(t.minH[0][0])-1)
		r.bounds.max[1] = max(r.bounds.max[1], float64(t.maxH[0][0])+10)
	}
	r.dirty = true
	return nil
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
