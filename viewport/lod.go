package viewport

import (
	"context"
	"math"

	"strata/internal/pool"
)

// chunkCells is the number of grid cells along a chunk's edge. Every chunk at every level is
// drawn with the same (chunkCells+1)² vertex grid plus skirts, scaled by its level's texel step,
// so one mesh and one instanced draw call cover the whole terrain.
const chunkCells = 32

// lodTree is the chunked-LOD quadtree over the height grid's texel-index space. Level 0 is the
// root; at the deepest level a chunk's vertices are one texel apart. Per node it keeps the height
// bounds (for culling and distance) and a geometric error in metres: the most the node's mesh
// can differ from the full-resolution surface, monotonic up the tree, so the screen-space error
// test never makes a parent finer than its children.
type lodTree struct {
	w, h      int
	levels    int
	rootCells int // texel intervals along the root's edge (chunkCells << (levels-1))
	minH      [][]float32
	maxH      [][]float32
	err       [][]float32
}

// chunkInst is one selected chunk as the vertex shader reads it (instance-rate: a vec4<f32> and
// a vec4<u32>).
type chunkInst struct {
	X0, Z0 float32 // texel index of the chunk's first vertex
	Step   float32 // texels between vertices
	Skirt  float32 // metres the skirt hangs below the edge
	// SlotX, SlotZ are where the chunk's page of the height pyramid (level log2 Step) starts in
	// the atlas; PageX, PageZ that page's first texel, in the level's texels.
	SlotX, SlotZ, PageX, PageZ uint32
}

// chunkInstBytes is a chunkInst's size in the instance buffer.
const chunkInstBytes = 32

// heightPage is the page of the height pyramid a chunk's vertices read: level log2(Step), the
// page holding the chunk's first vertex (its last vertex is at most that page's far border).
func (c *chunkInst) heightPage() PageKey {
	m := 0
	for 1<<m < int(c.Step) {
		m++
	}
	i, j := int(c.X0)>>m, int(c.Z0)>>m
	return PageKey{m, i / PageSize, j / PageSize}
}

// newLODTree builds the tree over src (locked) at once: every row of nodes of a level on every
// core, the leaves first.
func newLODTree(src HeightSource) *lodTree {
	t := allocLODTree(src.GridSize())
	row := func(j int) []float32 { return src.HeightRow(min(j, t.h-1)) }
	for l := t.levels - 1; l >= 0; l-- {
		pool.Each(context.Background(), t.nodeRows(l), 0, func(cj int) { t.nodeRow(row, l, cj) }, nil)
	}
	return t
}

// allocLODTree is the tree over a w×h grid with no node computed.
func allocLODTree(w, h int) *lodTree {
	t := &lodTree{w: w, h: h}
	cells := max(w, h) - 1
	t.levels, t.rootCells = 1, chunkCells
	for t.rootCells < cells {
		t.rootCells *= 2
		t.levels++
	}
	t.minH = make([][]float32, t.levels)
	t.maxH = make([][]float32, t.levels)
	t.err = make([][]float32, t.levels)
	for l := 0; l < t.levels; l++ {
		n := 1 << l
		t.minH[l] = make([]float32, n*n)
		t.maxH[l] = make([]float32, n*n)
		t.err[l] = make([]float32, n*n)
	}
	return t
}

// nodeRows and nodeCols are how many rows and columns of level l's nodes a whole build computes:
// all of them. A node wholly outside the grid (the root's square is a power of two, the grid
// need not be) gets empty bounds, min > max, which the walk skips and bounds ignores; update,
// which recomputes only the nodes a change reaches, never changes them.
func (t *lodTree) nodeRows(l int) int { return 1 << l }
func (t *lodTree) nodeCols(l int) int { return 1 << l }

// rowsUnder is how many of the grid's first rows node row cj of level l reads: through its last
// vertex row, clamped to the grid (a node reads no row past it, however its error is found).
func (t *lodTree) rowsUnder(l, cj int) int {
	span := t.rootCells >> l
	return min(cj*span+span, t.h-1) + 1
}

// nodeRow computes node row cj of level l (its children's rows computed before it): the nodes
// update computes there, to the same bits.
func (t *lodTree) nodeRow(row func(j int) []float32, l, cj int) {
	if l == t.levels-1 {
		t.leafRow(row, cj)
		return
	}
	n := 1 << l
	step := (t.rootCells >> l) / chunkCells
	span := chunkCells * step
	for ci := range t.nodeCols(l) {
		t.innerNode(row, l, ci, cj, n, step, span)
	}
}

// leafRow is leafNode for every leaf of row cj, reading the rows once each from end to end
// instead of a leaf's 33 short pieces of them (half the time at 8192²): each leaf still takes
// its rows' bounds in row order, so its bounds are leafNode's to the bit (TestLeafRow).
func (t *lodTree) leafRow(row func(j int) []float32, cj int) {
	leaf := t.levels - 1
	n := 1 << leaf
	cols := t.nodeCols(leaf)
	lo, hi := t.minH[leaf][cj*n:cj*n+cols], t.maxH[leaf][cj*n:cj*n+cols]
	for ci := range cols {
		lo[ci], hi[ci] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	z0 := cj * chunkCells
	if z0 >= t.h-1 {
		return // wholly outside the grid
	}
	inside := min(cols, (t.w-2)/chunkCells+1) // leaves with x0 < w-1
	for j := z0; j <= min(z0+chunkCells, t.h-1); j++ {
		r := row(j)
		for ci := range inside {
			x0 := ci * chunkCells
			l, h := rowBounds(r[x0 : min(x0+chunkCells, t.w-1)+1])
			if l < lo[ci] {
				lo[ci] = l
			}
			if h > hi[ci] {
				hi[ci] = h
			}
		}
	}
}

// update recomputes the nodes over height texels [x0, x1) × [z0, z1) (a stroke, a reload):
// the leaves touching it, then their ancestors, row by row of nodes on every core. src is locked.
func (t *lodTree) update(src HeightSource, x0, z0, x1, z1 int) {
	row := func(j int) []float32 { return src.HeightRow(min(j, t.h-1)) }
	leaf := t.levels - 1
	// A texel belongs to the chunks whose vertex range [c·32, c·32+32] holds it.
	lo := func(v int) int { return max(v-1, 0) / chunkCells }
	hi := func(v, n int) int { return min(v/chunkCells, n-1) }
	for l := leaf; l >= 0; l-- {
		n := 1 << l
		step := (t.rootCells >> l) / chunkCells
		span := chunkCells * step
		cx0, cx1 := lo(x0)/step, hi(x1, n*step)/step
		cz0, cz1 := lo(z0)/step, hi(z1, n*step)/step
		cx1, cz1 = min(cx1, n-1), min(cz1, n-1)
		rows := cz1 - cz0 + 1
		pool.Each(context.Background(), rows, 0, func(r int) {
			cj := cz0 + r
			for ci := cx0; ci <= cx1; ci++ {
				if l == leaf {
					t.leafNode(row, ci, cj, n)
				} else {
					t.innerNode(row, l, ci, cj, n, step, span)
				}
			}
		}, nil)
	}
}

// leafNode is a leaf's bounds over every texel it touches.
func (t *lodTree) leafNode(row func(j int) []float32, ci, cj, n int) {
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	x0, z0 := ci*chunkCells, cj*chunkCells
	if x0 < t.w-1 && z0 < t.h-1 {
		x1 := min(x0+chunkCells, t.w-1)
		for j := z0; j <= min(z0+chunkCells, t.h-1); j++ {
			l, h := rowBounds(row(j)[x0 : x1+1])
			if l < lo {
				lo = l
			}
			if h > hi {
				hi = h
			}
		}
	}
	t.minH[t.levels-1][cj*n+ci], t.maxH[t.levels-1][cj*n+ci] = lo, hi
}

// rowBounds is the lowest and highest of r (not empty; finite heights: plain comparisons, two
// pairs of accumulators, which the builtin min and max, careful of NaN and −0, are not).
func rowBounds(r []float32) (lo, hi float32) {
	lo0, hi0 := r[0], r[0]
	lo1, hi1 := lo0, hi0
	i := 1
	for ; i+1 < len(r); i += 2 {
		a, b := r[i], r[i+1]
		if a < lo0 {
			lo0 = a
		}
		if a > hi0 {
			hi0 = a
		}
		if b < lo1 {
			lo1 = b
		}
		if b > hi1 {
			hi1 = b
		}
	}
	if i < len(r) {
		if v := r[i]; v < lo0 {
			lo0 = v
		} else if v > hi0 {
			hi0 = v
		}
	}
	if lo1 < lo0 {
		lo0 = lo1
	}
	if hi1 > hi0 {
		hi0 = hi1
	}
	return lo0, hi0
}

// innerNode is an inner node's bounds from its children, and its error: the children's error
// plus how far this level's triangles stray from the child level's vertices.
func (t *lodTree) innerNode(row func(j int) []float32, l, ci, cj, n, step, span int) {
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	var ce float32
	for k := 0; k < 4; k++ {
		c := (2*cj+k/2)*(2*n) + 2*ci + k%2
		lo, hi = min(lo, t.minH[l+1][c]), max(hi, t.maxH[l+1][c])
		ce = max(ce, t.err[l+1][c])
	}
	t.minH[l][cj*n+ci], t.maxH[l][cj*n+ci] = lo, hi
	half := step / 2
	x0, z0 := ci*span, cj*span
	var d float32
	switch {
	case x0+span <= t.w-1 && z0+span <= t.h-1:
		d = innerError(row, x0, z0, step)
	case x0 < t.w-1 && z0 < t.h-1:
		d = t.edgeError(row, x0, z0, step, half)
	}
	t.err[l][cj*n+ci] = ce + d
}

// innerError is how far a node's triangles (quads of step texels split along the (0,0)–(1,1)
// diagonal, like the mesh) stray from the child level's vertices, half a step apart, for a node
// wholly inside the grid: no clamping, rows read once.
func innerError(row func(j int) []float32, x0, z0, step int) float32 {
	if step == 2 {
		return innerError2(row, x0, z0)
	}
	half := step / 2
	// Three accumulators (the row's, the diagonal's, the column's midpoints) and plain
	// comparisons: the differences are finite, and one max chain would serialise the loop.
	var dr, dd, dc float32
	for b := 0; b < chunkCells; b++ {
		r0, rm, r1 := row(z0+b*step), row(z0+b*step+half), row(z0+b*step+step)
		for a := 0; a <= chunkCells; a++ {
			ax := x0 + a*step
			if a < chunkCells {
				// The child vertex between two of this level's on its row (b even) …
				if v := abs32(r0[ax+half] - (r0[ax]+r0[ax+step])/2); v > dr {
					dr = v
				}
				// … and the diagonal's midpoint on the row between (both odd).
				if v := abs32(rm[ax+half] - (r0[ax]+r1[ax+step])/2); v > dd {
					dd = v
				}
			}
			// The child vertex between two of this level's on its column (a even, b odd).
			if v := abs32(rm[ax] - (r0[ax]+r1[ax])/2); v > dc {
				dc = v
			}
		}
	}
	// The node's last row of vertices (b = 64: even), between its columns.
	r := row(z0 + chunkCells*step)
	for a := 0; a < chunkCells; a++ {
		ax := x0 + a*step
		if v := abs32(r[ax+half] - (r[ax]+r[ax+step])/2); v > dr {
			dr = v
		}
	}
	return max(dr, dd, dc)
}

// innerError2 is innerError at step 2, the level above the leaves (three quarters of the tree's
// error work): the node's rows as arrays of its 65 texels, so no index is checked, and the same
// float32 operations on the same texels.
func innerError2(row func(j int) []float32, x0, z0 int) float32 {
	const n = 2 * chunkCells
	var dr, dd, dc float32
	r0 := (*[n + 1]float32)(row(z0)[x0:])
	for b := 0; b < chunkCells; b++ {
		rm := (*[n + 1]float32)(row(z0 + 2*b + 1)[x0:])
		r1 := (*[n + 1]float32)(row(z0 + 2*b + 2)[x0:])
		for i := 0; i < n; i += 2 {
			if v := abs32(r0[i+1] - (r0[i]+r0[i+2])/2); v > dr {
				dr = v
			}
			if v := abs32(rm[i+1] - (r0[i]+r1[i+2])/2); v > dd {
				dd = v
			}
			if v := abs32(rm[i] - (r0[i]+r1[i])/2); v > dc {
				dc = v
			}
		}
		if v := abs32(rm[n] - (r0[n]+r1[n])/2); v > dc {
			dc = v
		}
		r0 = r1
	}
	for i := 0; i < n; i += 2 {
		if v := abs32(r0[i+1] - (r0[i]+r0[i+2])/2); v > dr {
			dr = v
		}
	}
	return max(dr, dd, dc)
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// edgeError is innerError for a node that reaches past the grid's last texel: every read clamped.
func (t *lodTree) edgeError(row func(j int) []float32, x0, z0, step, half int) float32 {
	var d float32
	at := func(r []float32, i int) float32 { return r[min(i, t.w-1)] }
	for b := 0; b <= 2*chunkCells; b++ {
		z := z0 + b*half
		if z > t.h-1+half {
			break
		}
		// The rows this line of child vertices reads: its own, and this level's two.
		rz, r0, r1 := row(z), row(z0+(b/2)*step), row(z0+(b/2)*step+step)
		for a := 0; a <= 2*chunkCells; a++ {
			if a%2 == 0 && b%2 == 0 {
				continue // a vertex of this level: exact
			}
			x := x0 + a*half
			if x > t.w-1+half {
				break
			}
			ax := x0 + (a/2)*step
			var s float32
			switch {
			case a%2 == 1 && b%2 == 1:
				s = (at(r0, ax) + at(r1, ax+step)) / 2
			case a%2 == 1:
				s = (at(r0, ax) + at(r0, ax+step)) / 2
			default:
				s = (at(r0, ax) + at(r1, ax)) / 2
			}
			d = max(d, abs32(at(rz, x)-s))
		}
	}
	return d
}

// bounds is the lowest and highest height over height texels [x0, x1] × [z0, z1] (inclusive,
// clamped), from the coarsest nodes that cover it: never narrower than the truth.
func (t *lodTree) bounds(x0, z0, x1, z1 int) (lo, hi float32) {
	lo, hi = float32(math.Inf(1)), float32(math.Inf(-1))
	x0, z0 = max(x0, 0), max(z0, 0)
	x1, z1 = min(x1, t.w-1), min(z1, t.h-1)
	if x0 > x1 || z0 > z1 {
		return lo, hi
	}
	// The level whose nodes are at least as large as the box: at most four of them cover it.
	l := t.levels - 1
	for l > 0 && (t.rootCells>>l) < max(x1-x0, z1-z0)+1 {
		l--
	}
	n := 1 << l
	span := t.rootCells >> l
	for cj := z0 / span; cj <= min(z1/span, n-1); cj++ {
		for ci := x0 / span; ci <= min(x1/span, n-1); ci++ {
			if t.minH[l][cj*n+ci] <= t.maxH[l][cj*n+ci] {
				lo, hi = min(lo, t.minH[l][cj*n+ci]), max(hi, t.maxH[l][cj*n+ci])
			}
		}
	}
	return lo, hi
}

// lodParams are the per-frame inputs of chunk selection.
type lodParams struct {
	f        *frame
	min      [2]float64 // field minimum corner
	texel    [2]float64
	maxPxErr float64
	planes   [6][4]float64
}

// selectChunks walks the tree and appends the chunks to draw: a node is split while its error
// projected to the screen exceeds maxPxErr, and dropped when it lies outside the frustum.
func (t *lodTree) selectChunks(p *lodParams, out []chunkInst) []chunkInst {
	p.planes = frustumPlanes(p.f.viewProj)
	return t.visit(p, 0, 0, 0, out)
}

func (t *lodTree) visit(p *lodParams, l, ci, cj int, out []chunkInst) []chunkInst {
	n := 1 << l
	idx := cj*n + ci
	lo, hi := t.minH[l][idx], t.maxH[l][idx]
	if lo > hi { // wholly outside the grid
		return out
	}
	step := (t.rootCells >> l) / chunkCells
	x0, z0 := ci*chunkCells*step, cj*chunkCells*step
	x1, z1 := min(x0+chunkCells*step, t.w-1), min(z0+chunkCells*step, t.h-1)
	bmin := vec3{p.min[0] + (float64(x0)+0.5)*p.texel[0], float64(lo), p.min[1] + (float64(z0)+0.5)*p.texel[1]}
	bmax := vec3{p.min[0] + (float64(x1)+0.5)*p.texel[0], float64(hi), p.min[1] + (float64(z1)+0.5)*p.texel[1]}
	if !boxInFrustum(&p.planes, bmin, bmax) {
		return out
	}
	e := float64(t.err[l][idx])
	var px float64
	if p.f.ortho {
		px = e / p.f.metresPerPx
	} else {
		d := boxDistance(p.f.eye, bmin, bmax)
		px = e * p.f.pxPerRad / math.Max(d, 1e-6)
	}
	if px > p.maxPxErr && l < t.levels-1 {
		// Children nearest the eye first: the child on the eye's side of both split lines, then
		// its two neighbours, then the opposite one. Over the whole walk the chunks come out in
		// front-to-back order (the quadtree's split lines order them as a BSP does), so the
		// depth test rejects hidden fragments before the fragment shader runs instead of
		// shading them and drawing over them.
		mid := float64(chunkCells*step) / 2
		kx, kz := 0, 0
		if !p.f.ortho {
			if p.f.eye[0] >= p.min[0]+(float64(x0)+mid+0.5)*p.texel[0] {
				kx = 1
			}
			if p.f.eye[2] >= p.min[1]+(float64(z0)+mid+0.5)*p.texel[1] {
				kz = 1
			}
		}
		for _, k := range [4][2]int{{kx, kz}, {1 - kx, kz}, {kx, 1 - kz}, {1 - kx, 1 - kz}} {
			out = t.visit(p, l+1, 2*ci+k[0], 2*cj+k[1], out)
		}
		return out
	}
	// The skirt must bridge the gap to a neighbour drawn at any level: both surfaces are within
	// their own error of the true one, and a neighbour is at most as coarse as our parent in
	// practice; a floor of a few centimetres hides rounding cracks on flat ground.
	parentErr := e
	if l > 0 {
		parentErr = float64(t.err[l-1][(cj/2)*(n/2)+ci/2])
	}
	skirt := 2*parentErr + 0.05*math.Max(p.texel[0], p.texel[1])*float64(step)
	return append(out, chunkInst{X0: float32(x0), Z0: float32(z0), Step: float32(step), Skirt: float32(skirt)})
}

// frustumPlanes extracts the six clip planes (a·x + b·y + c·z + d ≥ 0 inside) from a
// column-major view-projection matrix with WebGPU's 0..1 depth.
func frustumPlanes(m mat4) [6][4]float64 {
	row := func(r int) [4]float64 { return [4]float64{m[r], m[4+r], m[8+r], m[12+r]} }
	r0, r1, r2, r3 := row(0), row(1), row(2), row(3)
	var p [6][4]float64
	for k := 0; k < 4; k++ {
		p[0][k] = r3[k] + r0[k]
		p[1][k] = r3[k] - r0[k]
		p[2][k] = r3[k] + r1[k]
		p[3][k] = r3[k] - r1[k]
		p[4][k] = r2[k]
		p[5][k] = r3[k] - r2[k]
	}
	return p
}

func boxInFrustum(planes *[6][4]float64, bmin, bmax vec3) bool {
	for _, pl := range planes {
		// The box corner farthest along the plane's normal.
		x, y, z := bmin[0], bmin[1], bmin[2]
		if pl[0] >= 0 {
			x = bmax[0]
		}
		if pl[1] >= 0 {
			y = bmax[1]
		}
		if pl[2] >= 0 {
			z = bmax[2]
		}
		if pl[0]*x+pl[1]*y+pl[2]*z+pl[3] < 0 {
			return false
		}
	}
	return true
}

func boxDistance(p, bmin, bmax vec3) float64 {
	var d2 float64
	for k := 0; k < 3; k++ {
		v := 0.0
		if p[k] < bmin[k] {
			v = bmin[k] - p[k]
		} else if p[k] > bmax[k] {
			v = p[k] - bmax[k]
		}
		d2 += v * v
	}
	return math.Sqrt(d2)
}
