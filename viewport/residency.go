package viewport

import (
	"errors"
	"fmt"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
)

// ErrAtlasFull says every slot of the weights atlas holds a page the frame samples (or one being
// written): the memory budget is too small for the view, which shows coarser levels there.
var ErrAtlasFull = errors.New("every slot of the weights atlas holds a page the frame samples")

// Residency: what a frame samples of the two pyramids and the work of making it resident. The
// height payload is filled from the scene's HeightSource as a frame needs it (a page is a few
// milliseconds of CPU); the weights come from the scene's stored controls when it has them, and
// otherwise from whoever evaluates them (the editor's session: WeightsNeed, PutWeights,
// WeightsSlot, CommitWeights, ShowWeights).

// heightGrid is the height pyramid's level-0 placement.
func (r *Renderer) heightGrid() gridPlace {
	return gridPlace{min: r.scene.Placement.Min(), texel: r.scene.texel()}
}

// weightsGrid is the weights pyramid's level-0 placement.
func (r *Renderer) weightsGrid() gridPlace {
	s := r.scene
	w := r.terrain.wgrid
	return gridPlace{min: s.Placement.Min(), texel: [2]float64{s.Placement.Size[0] / float64(w[0]), s.Placement.Size[1] / float64(w[1])}}
}

// need is the pages of pyramid p (placed at g) that frame f samples, coarse first, then nearest;
// the top page first of all (every other page falls back to it).
func (r *Renderer) need(f *frame, p pyramid, g gridPlace) []pageNeed {
	hg := r.heightGrid()
	tree := r.terrain.tree
	w := needWalk{f: f, p: p, g: g, size: r.scene.Placement.Size,
		bounds: func(x0, z0, x1, z1 float64) (float64, float64) {
			i0 := int(math.Floor((x0-hg.min[0])/hg.texel[0] - 0.5))
			j0 := int(math.Floor((z0-hg.min[1])/hg.texel[1] - 0.5))
			i1 := int(math.Ceil((x1-hg.min[0])/hg.texel[0] - 0.5))
			j1 := int(math.Ceil((z1-hg.min[1])/hg.texel[1] - 0.5))
			lo, hi := tree.bounds(i0, j0, i1, j1)
			if lo > hi { // no ground: the box of the scene
				return r.bounds.min[1], r.bounds.max[1]
			}
			return float64(lo) - 1, float64(hi) + 1
		}}
	out := w.run()
	top := PageKey{Level: p.top()}
	if len(out) == 0 || out[0].key != top {
		out = append([]pageNeed{{key: top}}, out...)
	}
	return out
}

// preparePages makes resident what frame f draws: the height pages of the selected chunks (and
// writes each chunk's slot into its instance), the height pages the pixels sample, and the
// weights pages the pixels sample when the scene has stored controls; it counts the weights pages
// the frame samples that the shown generation lacks. r.mu is held.
func (r *Renderer) preparePages(f *frame) (missing int, err error) {
	t := r.terrain
	t.hvt.clock++
	t.wvt.clock++
	src := r.scene.ground()
	src.Lock()
	defer src.Unlock()
	// The height pages this frame reads: its chunks' and its pixels'. An atlas too small for
	// them (a large frame, a wide view) grows before any is placed.
	hneed := r.need(f, t.hvt.pyr, r.heightGrid())
	pages := map[PageKey]bool{}
	for _, n := range hneed {
		pages[n.key] = true
	}
	for i := range r.chunks {
		pages[r.chunks[i].heightPage()] = true
	}
	if len(pages) > t.hvt.capacity()*3/4 {
		if err := r.growHeight(2 * len(pages)); err != nil {
			return 0, err
		}
		t.hvt.clock++
	}
	kept := r.chunks[:0]
	for _, c := range r.chunks {
		key := c.heightPage()
		s, err := r.ensureHeight(src, key)
		if err != nil {
			return 0, err
		}
		if s < 0 {
			continue // the atlas is full of this frame's pages: the chunk waits for the next
		}
		x, z := t.hvt.slotOrigin(s)
		c.SlotX, c.SlotZ = uint32(x), uint32(z)
		c.PageX, c.PageZ = uint32(key.X*PageSize), uint32(key.Z*PageSize)
		kept = append(kept, c)
	}
	r.chunks = kept
	for _, n := range hneed {
		if _, err := r.ensureHeight(src, n.key); err != nil {
			return 0, err
		}
	}
	for _, n := range r.need(f, t.wvt.pyr, r.weightsGrid()) {
		if t.wvt.resident(n.key, t.wvt.shown) {
			t.wvt.touch(n.key)
			continue
		}
		if t.controls[0] != nil && t.wvt.shown == 0 {
			if err := r.fillStoredWeights(n.key); err != nil {
				return 0, err
			}
			continue
		}
		missing++
	}
	if err := t.hvt.flush(); err != nil {
		return 0, err
	}
	if err := t.wvt.flush(); err != nil {
		return 0, err
	}
	return missing, nil
}

// Shares of the memory budget (SetMemoryBudget) each atlas may grow to.
const (
	heightBudgetShare  = 0.4
	weightsBudgetShare = 0.2
)

// SetMemoryBudget bounds the device memory the renderer's atlases may take: the height atlas
// grows to at most 40% of it, the weights atlas is made within 20% (a scene set afterwards). A
// frame that would need more height pages than fit draws the chunks it could place (so a budget
// should leave room for one frame's pages: some tens of MiB at 1280×720). 0 is no bound but the
// device's.
func (r *Renderer) SetMemoryBudget(bytes int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.budget = bytes
}

// slotsWithin is n slots, or as many as fit share of the memory budget at bytesPerSlot.
func (r *Renderer) slotsWithin(n int, share float64, bytesPerSlot int64) int {
	if r.budget <= 0 {
		return n
	}
	return max(1, min(n, int(float64(r.budget)*share/float64(bytesPerSlot))))
}

// slotBytes is what one slot costs in an atlas of the given texel size (all planes).
func slotBytes(bytesPerTexel int64) int64 { return slotSide * slotSide * bytesPerTexel }

// growHeight replaces the height atlas with one of at least n slots, within the budget (its
// pages are read again from the source as frames need them). r.mu is held.
func (r *Renderer) growHeight(n int) error {
	t := r.terrain
	n = r.slotsWithin(n, heightBudgetShare, slotBytes(16))
	old := t.hvt
	nv, err := newVtex(r.dev, old.label, old.pyr.w, old.pyr.h, old.pyr.levels, n, []wgpu.TextureFormat{wgpu.TextureFormatRGBA32Float}, 0)
	if err != nil {
		return err
	}
	if nv.capacity() <= old.capacity() {
		nv.Release()
		return nil // as large as the device allows already
	}
	t.hvt = nv
	old.Release()
	if err := t.rebind(r.dev, r.frameBuf); err != nil {
		return err
	}
	return r.inst.bindFrame(r.dev, r.frameBuf, nv)
}

// ensureHeight makes page key of the height pyramid resident (filling it from src) and marks it
// sampled by this frame; it returns its slot, or -1 when every slot holds a page of this frame.
func (r *Renderer) ensureHeight(src HeightSource, key PageKey) (int, error) {
	v := r.terrain.hvt
	if s, ok := v.byKey[pageID{key, 0}]; ok && v.slots[s].ready {
		v.touch(key)
		return s, nil
	}
	s := v.alloc(key, 0)
	if s < 0 {
		return -1, nil
	}
	n, m := v.pageTexels(key)
	buf := r.scratch(4 * n * m)
	fillHeightPage(src, key, n, m, buf)
	if err := v.write(r.dev, 0, s, n, m, 16, wgpu.ToBytes(buf)); err != nil {
		v.unreserve(s)
		return -1, fmt.Errorf("viewport: %w", err)
	}
	v.commit(key, 0, s)
	v.touch(key)
	return s, nil
}

// scratch is a float buffer of n values the renderer reuses from page to page.
func (r *Renderer) scratch(n int) []float32 {
	if cap(r.pageBuf) < n {
		r.pageBuf = make([]float32, n)
	}
	return r.pageBuf[:n]
}

// fillStoredWeights writes page key of the weights pyramid from the scene's stored controls: the
// level's texels are the controls' texels (i·2^k, j·2^k) (docs/design.md "Levels"), the border
// past the grid's last one clamped to it.
func (r *Renderer) fillStoredWeights(key PageKey) error {
	t := r.terrain
	v := t.wvt
	s := v.alloc(key, 0)
	if s < 0 {
		return nil
	}
	n, m := v.pageTexels(key)
	st := 1 << key.Level
	w, h := t.wgrid[0], t.wgrid[1]
	buf := make([]byte, 4*n*m)
	for i, c := range t.controls {
		for b := 0; b < m; b++ {
			j := min((key.Z*PageSize+b)*st, h-1)
			for a := 0; a < n; a++ {
				x := min((key.X*PageSize+a)*st, w-1)
				if c != nil {
					copy(buf[4*(b*n+a):4*(b*n+a)+4], c.Pix[j*c.Stride+4*x:])
				} else {
					copy(buf[4*(b*n+a):4*(b*n+a)+4], []byte{0, 0, 0, 0})
				}
			}
		}
		if err := v.write(r.dev, i, s, n, m, 4, buf); err != nil {
			v.unreserve(s)
			return fmt.Errorf("viewport: %w", err)
		}
	}
	v.commit(key, 0, s)
	v.touch(key)
	return nil
}

// WeightsNeed lists the pages of the weights pyramid the current camera samples in a frame of
// w×h pixels (the full size, whatever a reduced frame draws at): the top page, then coarse
// before fine, nearest first — the order an evaluator should take them in.
func (r *Renderer) WeightsNeed(w, h int) []PageKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return nil
	}
	f := r.cam.frame(w, h, r.bounds)
	ns := r.need(&f, r.terrain.wvt.pyr, r.weightsGrid())
	out := make([]PageKey, len(ns))
	for i, n := range ns {
		out[i] = n.key
	}
	return out
}

// WeightsLevels is the number of levels of the weights pyramid, and the size of its level 0.
func (r *Renderer) WeightsLevels() (levels, w, h int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return 0, 0, 0
	}
	p := r.terrain.wvt.pyr
	return p.levels, p.w, p.h
}

// WeightsResident reports whether page key of generation gen is written.
func (r *Renderer) WeightsResident(key PageKey, gen uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scene != nil && r.terrain.wvt.resident(key, gen)
}

// WeightsCapacity is the number of weights pages the atlas holds at once.
func (r *Renderer) WeightsCapacity() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return 0
	}
	return r.terrain.wvt.capacity()
}

// PageRect is the texels of the level a weights page holds: its own and the far border (the
// first texel of the next page), clipped to the level's grid. An evaluator computes these.
func (r *Renderer) PageRect(key PageKey) (x0, z0, x1, z1 int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return pageRect(r.terrain.wvt.pyr, key)
}

func pageRect(p pyramid, key PageKey) (x0, z0, x1, z1 int) {
	lw, lh := p.size(key.Level)
	x0, z0 = key.X*PageSize, key.Z*PageSize
	return x0, z0, min(x0+slotSide, lw), min(z0+slotSide, lh)
}

// PutWeights writes page key of generation gen from the CPU: lo and hi hold the texels of
// PageRect(key), RGBA rows tightly packed. The page shows once gen is shown (ShowWeights).
func (r *Renderer) PutWeights(key PageKey, gen uint64, lo, hi []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return fmt.Errorf("viewport: put weights: no scene")
	}
	v := r.terrain.wvt
	if v.pyr.index(key) < 0 {
		return fmt.Errorf("viewport: put weights: page %+v outside the pyramid", key)
	}
	x0, z0, x1, z1 := pageRect(v.pyr, key)
	n, m := x1-x0, z1-z0
	if len(lo) != 4*n*m || len(hi) != 4*n*m {
		return fmt.Errorf("viewport: put weights: page %+v holds %d×%d texels, got %d and %d bytes", key, n, m, len(lo), len(hi))
	}
	s := v.alloc(key, gen)
	if s < 0 {
		return fmt.Errorf("viewport: put weights: %w", ErrAtlasFull)
	}
	for i, b := range [][]byte{lo, hi} {
		if err := v.write(r.dev, i, s, n, m, 4, b); err != nil {
			v.unreserve(s)
			return fmt.Errorf("viewport: %w", err)
		}
	}
	v.commit(key, gen, s)
	r.dirty = true
	return nil
}

// WeightsSlot reserves a slot for page key of generation gen and returns a target the weights
// kernel writes the page into where it is (gpu.WeightsTarget's Origin places the level's texel
// (x, z) at the slot: a texel's global index minus Origin, modulo 2^32, is its atlas texel).
// Dispatch the texels of PageRect(key), then CommitWeights; on failure UnreserveWeights. The
// target's textures are the renderer's: never released by the caller.
func (r *Renderer) WeightsSlot(key PageKey, gen uint64) (*gpu.WeightsTarget, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return nil, -1, fmt.Errorf("viewport: weights slot: no scene")
	}
	v := r.terrain.wvt
	if v.pyr.index(key) < 0 {
		return nil, -1, fmt.Errorf("viewport: weights slot: page %+v outside the pyramid", key)
	}
	s := v.alloc(key, gen)
	if s < 0 {
		return nil, -1, fmt.Errorf("viewport: weights slot: %w", ErrAtlasFull)
	}
	if r.atlasTarget == nil {
		wrap := func(t *texture) *gpu.Texture {
			return &gpu.Texture{Label: t.label, Width: t.w, Height: t.h, Format: t.format, Tex: t.tex, View: t.view}
		}
		lo, hi := v.planes[0], v.planes[1]
		r.atlasTarget = &gpu.WeightsTarget{Lo: wrap(lo), Hi: wrap(hi), W: lo.w, H: lo.h}
	}
	x, z := v.slotOrigin(s)
	t := *r.atlasTarget
	t.Origin = [2]uint32{uint32(key.X*PageSize) - uint32(x), uint32(key.Z*PageSize) - uint32(z)}
	return &t, s, nil
}

// CommitWeights says the page WeightsSlot reserved in slot s is written (its dispatch is queued:
// frames submitted after it sample the result).
func (r *Renderer) CommitWeights(key PageKey, gen uint64, s int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene != nil {
		r.terrain.wvt.commit(key, gen, s)
		r.dirty = true
	}
}

// UnreserveWeights frees a slot WeightsSlot reserved whose page was not written.
func (r *Renderer) UnreserveWeights(s int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene != nil {
		r.terrain.wvt.unreserve(s)
	}
}

// ShowWeights makes gen the generation of weights frames show: pages written for it replace every
// older page at once (a picture never mixes two stacks); where gen has no page yet a frame falls
// back to the coarser ones it has, or to the ground layer.
func (r *Renderer) ShowWeights(gen uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene != nil && gen != r.terrain.wvt.shown {
		r.terrain.wvt.show(gen)
		r.dirty = true
	}
}

// DropWeights forgets the pages of generation gen whose texels read the weights texels
// [x0, x1) × [z0, z1) of level 0 (a painted mask, a cut hole, a reload changed the ground they
// were evaluated on): until written again a frame samples a coarser resident level there.
func (r *Renderer) DropWeights(gen uint64, x0, z0, x1, z1 int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return
	}
	v := r.terrain.wvt
	for _, key := range pagesOver(v.pyr, x0, z0, x1, z1) {
		v.drop(key, gen)
	}
	r.dirty = true
}

// PagesOver lists the pages of every level of the weights pyramid whose texels sample a level-0
// texel of [x0, x1) × [z0, z1) (what a field edit there makes stale).
func (r *Renderer) PagesOver(x0, z0, x1, z1 int) []PageKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return nil
	}
	return pagesOver(r.terrain.wvt.pyr, x0, z0, x1, z1)
}

// DropPage forgets page key of weights generation gen (its content is stale and the view no
// longer samples it).
func (r *Renderer) DropPage(key PageKey, gen uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene != nil {
		r.terrain.wvt.drop(key, gen)
		r.dirty = true
	}
}

// pagesOver lists the pages of every level of p whose texels (their border included) sample a
// level-0 texel of [x0, x1) × [z0, z1).
func pagesOver(p pyramid, x0, z0, x1, z1 int) []PageKey {
	var out []PageKey
	if x1 <= x0 || z1 <= z0 {
		return nil
	}
	for k := 0; k < p.levels; k++ {
		d := 1 << k
		lw, lh := p.size(k)
		// Level texels i with i·d in [x0, x1); the last level texel past the grid's clamp too.
		i0, i1 := (x0+d-1)/d, min((x1-1)/d, lw)
		j0, j1 := (z0+d-1)/d, min((z1-1)/d, lh)
		if i0 > i1 || j0 > j1 {
			continue
		}
		nx, nz := p.pages(k)
		// Page X holds texels [X·P, X·P+P] (its border is the next page's first).
		for pz := max((j0-1)/PageSize, 0); pz <= min(j1/PageSize, nz-1); pz++ {
			for px := max((i0-1)/PageSize, 0); px <= min(i1/PageSize, nx-1); px++ {
				out = append(out, PageKey{k, px, pz})
			}
		}
	}
	return out
}

// WeightsRoom reports whether a page of a new generation could be given a slot now (some slot is
// free or holds a page no frame samples): false when the memory budget holds no more of the view.
func (r *Renderer) WeightsRoom() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scene == nil {
		return false
	}
	v := r.terrain.wvt
	for s := range v.slots {
		if v.evictable(s) {
			return true
		}
	}
	return false
}
