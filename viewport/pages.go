package viewport

import (
	"math"
	"slices"
)

// PageSize is the side of a page in texels of its level: the unit in which the renderer's
// virtual textures (the weights and the height payload) are made resident, evaluated and evicted.
// A page of level k covers PageSize·2^k texels of the full grid, so the pages of the pyramid form
// a quadtree: page (x, z) of level k is the four pages (2x…2x+1, 2z…2z+1) of level k−1.
const PageSize = 256

// slotSide is a page's square in an atlas: the page and one more texel along each far edge (the
// first texel of the next page, or the grid's clamp past the last), so a bilinear tap of any
// point of the page reads its own slot.
const slotSide = PageSize + 1

// maxLevels bounds a pyramid's levels (a grid of 2^16 texels a side in pages of 256 has 9).
const maxLevels = 16

// PageKey names one page: its level and its column and row among the level's pages.
type PageKey struct{ Level, X, Z int }

// pyramid is the levels of one grid: level k has ⌈W/2^k⌉ × ⌈H/2^k⌉ texels, texel (i, j) standing
// where the full grid's texel (i·2^k, j·2^k) stands (docs/design.md "Levels"). The last level is
// the first whose grid fits one page.
type pyramid struct {
	w, h   int
	levels int
	// offset[k] is where level k's pages start in the page table; total is the table's length.
	offset [maxLevels]int
	total  int
}

// newPyramid is the pyramid of a w×h grid, with at least minLevels levels (the height's has as
// many as the terrain's LOD tree: its coarsest chunks read a level whose step is theirs).
func newPyramid(w, h, minLevels int) pyramid {
	p := pyramid{w: max(w, 1), h: max(h, 1)}
	for k := 0; k < maxLevels; k++ {
		p.offset[k] = p.total
		nx, nz := p.pages(k)
		p.total += nx * nz
		p.levels = k + 1
		if lw, lh := p.size(k); lw <= PageSize && lh <= PageSize && p.levels >= minLevels {
			break
		}
	}
	return p
}

// size is level k's grid.
func (p pyramid) size(k int) (w, h int) {
	d := 1 << k
	return (p.w + d - 1) / d, (p.h + d - 1) / d
}

// pages is how many pages level k has across and down.
func (p pyramid) pages(k int) (nx, nz int) {
	w, h := p.size(k)
	return (w + PageSize - 1) / PageSize, (h + PageSize - 1) / PageSize
}

// top is the coarsest level: one page.
func (p pyramid) top() int { return p.levels - 1 }

// index is key's entry in the page table, or -1 when the key lies outside the pyramid.
func (p pyramid) index(k PageKey) int {
	if k.Level < 0 || k.Level >= p.levels {
		return -1
	}
	nx, nz := p.pages(k.Level)
	if k.X < 0 || k.Z < 0 || k.X >= nx || k.Z >= nz {
		return -1
	}
	return p.offset[k.Level] + k.Z*nx + k.X
}

// levelFor is the level a pixel samples a grid of texel metres at: the level whose texels are
// nearest the pixel's footprint in scale, log2(texel/footprint) rounded (footprint metres: the
// distance from the eye over pixels per radian, or the map's metres per pixel), clamped to
// [0, top] — a texel covers between 0.7 and 1.4 pixels across, so a view costs about a pixel's
// worth of texels whatever the field. The terrain shader's level_for is its twin; the need walk
// allows for float32 rounding at the boundaries by taking the levels on both sides.
func levelFor(footprint, texel float64, top int) int {
	r := footprint / texel
	if !(r > math.Sqrt2) {
		return 0
	}
	return min(int(math.Floor(math.Log2(r)+0.5)), top)
}

// grid is the world placement of a pyramid's level-0 grid.
type gridPlace struct {
	min   [2]float64 // field minimum corner
	texel [2]float64 // level-0 texel size, metres
}

// pageNeed is one page a frame samples, with what orders the work: nearer and coarser first.
type pageNeed struct {
	key  PageKey
	dist float64 // metres from the eye to the page's box (0 in the map)
}

// needWalk finds the pages of one pyramid a camera frame samples: a page of level k is needed
// when its box lies in the frustum and some point of it is seen at level k (levelFor of the
// distances its box spans, widened by one level each way for rounding). The pages form a
// quadtree, so the walk starts from the top page and descends only where a finer level is seen.
// bounds gives the height range over a world rectangle (the terrain's LOD tree).
type needWalk struct {
	f      *frame
	p      pyramid
	g      gridPlace
	texel  float64 // the finer side of a level-0 texel
	size   [2]float64
	planes [6][4]float64
	bounds func(x0, z0, x1, z1 float64) (lo, hi float64)
	out    []pageNeed
}

func (w *needWalk) run() []pageNeed {
	w.texel = math.Min(w.g.texel[0], w.g.texel[1])
	w.planes = frustumPlanes(w.f.viewProj)
	w.visit(w.p.top(), 0, 0)
	// Coarse before fine (a coarse page covers what its children will, at a quarter of the
	// cost), then nearest first.
	slices.SortStableFunc(w.out, func(a, b pageNeed) int {
		if a.key.Level != b.key.Level {
			return b.key.Level - a.key.Level
		}
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		return 0
	})
	return w.out
}

func (w *needWalk) visit(k, px, pz int) {
	nx, nz := w.p.pages(k)
	if px >= nx || pz >= nz {
		return
	}
	span := float64(int(PageSize) << k)
	x0 := w.g.min[0] + float64(px)*span*w.g.texel[0]
	z0 := w.g.min[1] + float64(pz)*span*w.g.texel[1]
	x1 := math.Min(x0+span*w.g.texel[0], w.g.min[0]+w.size[0])
	z1 := math.Min(z0+span*w.g.texel[1], w.g.min[1]+w.size[1])
	lo, hi := w.bounds(x0, z0, x1, z1)
	bmin, bmax := vec3{x0, lo, z0}, vec3{x1, hi, z1}
	if !boxInFrustum(&w.planes, bmin, bmax) {
		return
	}
	var kFine, kCoarse int
	var dist float64
	if w.f.ortho {
		kFine = levelFor(w.f.metresPerPx*0.999, w.texel, w.p.top())
		kCoarse = levelFor(w.f.metresPerPx*1.001, w.texel, w.p.top())
	} else {
		dist = boxDistance(w.f.eye, bmin, bmax)
		far := boxFarthest(w.f.eye, bmin, bmax)
		kFine = levelFor(dist/w.f.pxPerRad*0.999, w.texel, w.p.top())
		kCoarse = levelFor(far/w.f.pxPerRad*1.001, w.texel, w.p.top())
	}
	if k >= kFine && k <= kCoarse {
		w.out = append(w.out, pageNeed{key: PageKey{k, px, pz}, dist: dist})
	}
	if kFine < k && k > 0 {
		for _, c := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			w.visit(k-1, 2*px+c[0], 2*pz+c[1])
		}
	}
}

// boxFarthest is the distance from p to the box's farthest corner.
func boxFarthest(p, bmin, bmax vec3) float64 {
	var d2 float64
	for k := 0; k < 3; k++ {
		v := math.Max(math.Abs(p[k]-bmin[k]), math.Abs(p[k]-bmax[k]))
		d2 += v * v
	}
	return math.Sqrt(d2)
}
