package viewport

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"

	"strata/gpu"
)

// vtex is a virtual texture: one grid's pyramid of pages (pages.go), of which the pages a frame
// samples are resident in slots of a physical atlas — one texture per plane (the weights' two
// RGBA8 planes, or the height payload's one RGBA32F) of slotsX × slotsZ slots of slotSide² texels
// — and a page table the shaders read: per page, its slot + 1, or 0 when it is not resident (the
// shader then falls back to the next coarser level that is). Slots are reused least recently used
// first; a page in the table is never overwritten while shown.
//
// Generations keep a picture from mixing two versions of the data: pages written for a newer
// generation stay out of the table until that generation is shown (show), which then drops every
// older page from it at once. The height payload uses one generation; the weights move to a new
// one when the stack changes.
//
// vtex is not safe for concurrent use: the Renderer's mutex guards it.
type vtex struct {
	label  string
	pyr    pyramid
	planes []*texture

	slotsX, slotsZ int
	slots          []slot
	byKey          map[pageID]int // resident pages (any generation) → slot

	table      []uint32 // per page of the pyramid: slot+1 of the shown generation, 0 = none
	tableBuf   *gpu.Buffer
	tableDirty bool
	shown      uint64 // the generation the table shows
	clock      uint64 // advances per frame: slots' lastUsed
}

// pageID is a page of one generation.
type pageID struct {
	key PageKey
	gen uint64
}

type slot struct {
	id       pageID
	used     bool   // holds a page (or is reserved for one being written)
	ready    bool   // its content is written: it may enter the table
	lastUsed uint64 // clock of the last frame that sampled or pinned it
	pinned   uint64 // not evicted before this clock (a page being written)
}

// vtexHeader is the table buffer's prefix the shaders read: per level, the offset of its pages
// in the entries, its pages across, and its grid's width and height (level texels); then the
// slots across (x of the 17th vec4) — maxLevels+1 vec4<u32>.
const vtexHeaderWords = 4 * (maxLevels + 1)

// newVtex allocates an atlas of at least minSlots slots (capped by the device's texture size)
// for the pyramid of a grid of w×h texels (at least minLevels levels) in the given formats. usage adds to TextureBinding|CopyDst (the
// weights atlas is also a storage target for the kernel).
func newVtex(d *gpu.Device, label string, w, h, minLevels, minSlots int, formats []wgpu.TextureFormat, usage wgpu.TextureUsage) (*vtex, error) {
	v := &vtex{label: label, pyr: newPyramid(w, h, minLevels), byKey: map[pageID]int{}}
	lim := int(d.Limits.MaxTextureDimension2D)
	if lim <= 0 {
		lim = 8192
	}
	maxSide := lim / slotSide
	// Never more than the pyramid's pages twice over (a generation being written beside the one
	// shown), and a few for the pages being rewritten.
	n := min(max(minSlots, 1), 2*v.pyr.total+4)
	v.slotsX = min(maxSide, ceilSqrt(n))
	v.slotsZ = min(maxSide, (n+v.slotsX-1)/v.slotsX)
	v.slots = make([]slot, v.slotsX*v.slotsZ)
	v.table = make([]uint32, vtexHeaderWords+v.pyr.total)
	for k := 0; k < v.pyr.levels; k++ {
		nx, _ := v.pyr.pages(k)
		lw, lh := v.pyr.size(k)
		copy(v.table[4*k:], []uint32{uint32(v.pyr.offset[k]), uint32(nx), uint32(lw), uint32(lh)})
	}
	v.table[4*maxLevels] = uint32(v.slotsX)
	v.table[4*maxLevels+1] = uint32(v.pyr.levels)
	aw, ah := uint32(v.slotsX*slotSide), uint32(v.slotsZ*slotSide)
	for i, f := range formats {
		t, err := newTexture(d, fmt.Sprintf("%s atlas %d", label, i), aw, ah, 1, f,
			wgpu.TextureUsageTextureBinding|wgpu.TextureUsageCopyDst|usage)
		if err != nil {
			v.Release()
			return nil, err
		}
		v.planes = append(v.planes, t)
	}
	var err error
	if v.tableBuf, err = d.NewBuffer(label+" page table", uint64(4*len(v.table)), wgpu.BufferUsageStorage); err != nil {
		v.Release()
		return nil, fmt.Errorf("viewport: %w", err)
	}
	v.tableDirty = true
	return v, nil
}

func ceilSqrt(n int) int {
	s := 1
	for s*s < n {
		s++
	}
	return s
}

// Release frees the atlas and the table. Safe on nil and twice.
func (v *vtex) Release() {
	if v == nil {
		return
	}
	for _, p := range v.planes {
		p.Release()
	}
	v.planes = nil
	v.tableBuf.Release()
	v.tableBuf = nil
}

// capacity is the number of slots.
func (v *vtex) capacity() int { return len(v.slots) }

// slotOrigin is slot s's first texel in the atlas.
func (v *vtex) slotOrigin(s int) (x, z int) {
	return (s % v.slotsX) * slotSide, (s / v.slotsX) * slotSide
}

// resident reports whether key of generation gen is written in a slot (shown or not).
func (v *vtex) resident(key PageKey, gen uint64) bool {
	s, ok := v.byKey[pageID{key, gen}]
	return ok && v.slots[s].ready
}

// touch marks key of the shown generation as sampled by the frame now being drawn.
func (v *vtex) touch(key PageKey) {
	if s, ok := v.byKey[pageID{key, v.shown}]; ok {
		v.slots[s].lastUsed = v.clock
	}
}

// alloc reserves a slot for key of generation gen, evicting the least recently used page that
// is neither pinned nor sampled by the current frame; it returns -1 when every slot is. The page
// enters the table when commit says its content is written; until then a frame samples what was
// there before (a coarser level). A page already resident is given a fresh slot all the same,
// so a frame never samples one half rewritten; its old slot is freed at the commit. The slot
// stays pinned through the next frame.
func (v *vtex) alloc(key PageKey, gen uint64) int {
	id := pageID{key, gen}
	if s, ok := v.byKey[id]; ok && !v.slots[s].ready {
		v.slots[s].pinned = v.clock + 1
		return s
	}
	best, bestRank := -1, 0
	for s := range v.slots {
		sl := &v.slots[s]
		if !sl.used {
			best = s
			break
		}
		if !v.evictable(s) {
			continue // being written, or sampled by this frame
		}
		// Pages of an older generation go first, then the shown one's least recently used;
		// pages written ahead for a newer generation last.
		rank := 1
		switch {
		case sl.id.gen < v.shown:
			rank = 0
		case sl.id.gen > v.shown:
			rank = 2
		}
		if best < 0 || rank < bestRank || (rank == bestRank && sl.lastUsed < v.slots[best].lastUsed) {
			best, bestRank = s, rank
		}
	}
	if best < 0 {
		return -1
	}
	v.evict(best)
	v.slots[best] = slot{id: id, used: true, lastUsed: v.clock, pinned: v.clock + 1}
	if _, ok := v.byKey[id]; !ok {
		v.byKey[id] = best
	}
	return best
}

// evictable reports whether slot s may be given to another page: it is empty, or holds a written
// page that is not pinned and that the current frame does not sample.
func (v *vtex) evictable(s int) bool {
	sl := &v.slots[s]
	return !sl.used || (sl.ready && sl.pinned <= v.clock && !(sl.id.gen == v.shown && sl.lastUsed >= v.clock))
}

// commit says slot s (alloc's) now holds key of generation gen: it replaces the page's former
// slot, if any, and enters the table when gen is shown.
func (v *vtex) commit(key PageKey, gen uint64, s int) {
	id := pageID{key, gen}
	if old, ok := v.byKey[id]; ok && old != s {
		v.evict(old)
	}
	v.byKey[id] = s
	v.slots[s].ready = true
	v.slots[s].lastUsed = v.clock
	if gen == v.shown {
		v.setEntry(key, s)
	}
}

// evict empties slot s (and the table entry that points at it).
func (v *vtex) evict(s int) {
	sl := &v.slots[s]
	if !sl.used {
		return
	}
	if cur, ok := v.byKey[sl.id]; ok && cur == s {
		delete(v.byKey, sl.id)
	}
	if sl.id.gen == v.shown && sl.ready {
		if i := v.pyr.index(sl.id.key); i >= 0 && v.table[vtexHeaderWords+i] == uint32(s+1) {
			v.table[vtexHeaderWords+i] = 0
			v.tableDirty = true
		}
	}
	*sl = slot{}
}

// unreserve frees slot s, reserved by alloc and never committed (the write failed).
func (v *vtex) unreserve(s int) {
	if s >= 0 && s < len(v.slots) && v.slots[s].used && !v.slots[s].ready {
		v.evict(s)
	}
}

// drop forgets key of generation gen (its content is stale): the shader falls back to a coarser
// level there until it is written again.
func (v *vtex) drop(key PageKey, gen uint64) {
	if s, ok := v.byKey[pageID{key, gen}]; ok {
		v.evict(s)
	}
}

// show makes gen the generation the table shows: every page of an older one leaves the table
// (and its slot is free for reuse); pages of gen already written enter it.
func (v *vtex) show(gen uint64) {
	if gen == v.shown {
		return
	}
	v.shown = gen
	for i := vtexHeaderWords; i < len(v.table); i++ {
		v.table[i] = 0
	}
	v.tableDirty = true
	for s := range v.slots {
		sl := &v.slots[s]
		switch {
		case !sl.used:
		case sl.id.gen == gen:
			if cur, ok := v.byKey[sl.id]; sl.ready && ok && cur == s {
				v.setEntry(sl.id.key, s)
			}
		case sl.id.gen < gen && sl.pinned <= v.clock:
			if cur, ok := v.byKey[sl.id]; ok && cur == s {
				delete(v.byKey, sl.id)
			}
			*sl = slot{}
		}
	}
}

func (v *vtex) setEntry(key PageKey, s int) {
	if i := v.pyr.index(key); i >= 0 {
		v.table[vtexHeaderWords+i] = uint32(s + 1)
		v.tableDirty = true
	}
}

// flush uploads the table when it changed.
func (v *vtex) flush() error {
	if !v.tableDirty {
		return nil
	}
	if err := v.tableBuf.Write(0, wgpu.ToBytes(v.table)); err != nil {
		return fmt.Errorf("viewport: %w", err)
	}
	v.tableDirty = false
	return nil
}

// write uploads a page's texels into slot s of plane i: data holds n×m texels of bpt bytes,
// rows tightly packed (n, m ≤ slotSide).
func (v *vtex) write(d *gpu.Device, i, s, n, m, bpt int, data []byte) error {
	x, z := v.slotOrigin(s)
	t := v.planes[i]
	return d.Do("write "+t.label, func() error {
		return d.Queue.WriteTexture(&wgpu.ImageCopyTexture{Texture: t.tex, Aspect: wgpu.TextureAspectAll,
			Origin: wgpu.Origin3D{X: uint32(x), Y: uint32(z)}},
			data, &wgpu.TextureDataLayout{BytesPerRow: uint32(bpt * n), RowsPerImage: uint32(m)},
			&wgpu.Extent3D{Width: uint32(n), Height: uint32(m), DepthOrArrayLayers: 1})
	})
}

// pageTexels is how many texels of page key's slot hold the grid (the rest of a page at the
// grid's far edge is never sampled): the page's own texels plus the far border, clamped.
func (v *vtex) pageTexels(key PageKey) (n, m int) {
	lw, lh := v.pyr.size(key.Level)
	return min(slotSide, lw-key.X*PageSize+1), min(slotSide, lh-key.Z*PageSize+1)
}
