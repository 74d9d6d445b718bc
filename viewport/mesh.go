package viewport

import (
	"math"
)

// gridMesh builds the one terrain mesh every chunk shares: (chunkCells+1)² grid vertices whose
// xy are the vertex's grid coordinates and z = 0, then a skirt vertex under each edge vertex (z = the edge: 1 −Z, 2 +X,
// 3 +Z, 4 −X), which the vertex shader drops by the chunk's skirt depth. Quads are split along the
// (0,0)–(1,1) diagonal, the split lodTree's error measure assumes.
func gridMesh() (verts []float32, idx []uint32) {
	const n = chunkCells + 1
	for b := 0; b < n; b++ {
		for a := 0; a < n; a++ {
			verts = append(verts, float32(a), float32(b), 0)
		}
	}
	// Quads in bands of gridBand rows: down each column of a band, then the next column, so a
	// vertex is used again while it is still in the post-transform cache (row by row, a row's
	// vertices were shaded twice; measured on the H200: the low close view's geometry pass 10%
	// faster). The triangles are the same in any order.
	for b0 := 0; b0 < chunkCells; b0 += gridBand {
		for a := 0; a < chunkCells; a++ {
			for b := b0; b < min(b0+gridBand, chunkCells); b++ {
				v00 := uint32(b*n + a)
				v10, v01, v11 := v00+1, v00+n, v00+n+1
				idx = append(idx, v00, v10, v11, v00, v11, v01)
			}
		}
	}
	// Skirts along the four edges, each a strip of quads hanging from the edge vertices.
	// Every skirt faces out of its chunk, the side a crack is seen from (seen from inside, a
	// skirt is under the chunk's own surface), wound like the grid seen from above, so the
	// terrain pipeline can cull back faces: edges 1 and 2 walk the other way round.
	edge := func(id float32, get func(k int) (a, b int)) {
		base := uint32(len(verts) / 3)
		for k := 0; k < n; k++ {
			a, b := get(k)
			verts = append(verts, float32(a), float32(b), id)
		}
		for k := 0; k < chunkCells; k++ {
			a0, b0 := get(k)
			a1, b1 := get(k + 1)
			t0, t1 := uint32(b0*n+a0), uint32(b1*n+a1)
			s0, s1 := base+uint32(k), base+uint32(k+1)
			if id == 1 || id == 2 {
				idx = append(idx, t0, s1, t1, t0, s0, s1)
			} else {
				idx = append(idx, t0, t1, s1, t0, s1, s0)
			}
		}
	}
	edge(1, func(k int) (int, int) { return k, 0 })
	edge(2, func(k int) (int, int) { return chunkCells, k })
	edge(3, func(k int) (int, int) { return k, chunkCells })
	edge(4, func(k int) (int, int) { return 0, k })
	return verts, idx
}

// gridBand is the number of quad rows the grid's index order walks down before the next column.
const gridBand = 4

// gridTriangles is the triangle count of one chunk (grid and skirts).
const gridTriangles = chunkCells*chunkCells*2 + 4*chunkCells*2

// meshBuilder accumulates a flat-shaded triangle list: position, normal, colour (linear RGB),
// nine floats a vertex.
type meshBuilder struct{ v []float32 }

func (m *meshBuilder) tri(a, b, c vec3, col vec3) {
	n := b.sub(a).cross(c.sub(a)).normalize()
	for _, p := range []vec3{a, b, c} {
		m.v = append(m.v, float32(p[0]), float32(p[1]), float32(p[2]),
			float32(n[0]), float32(n[1]), float32(n[2]),
			float32(col[0]), float32(col[1]), float32(col[2]))
	}
}

// cone adds a side surface from a ring of radius r0 at y0 to a ring of r1 at y1 (r1 = 0: apex),
// with `sides` facets, outward facing.
func (m *meshBuilder) cone(sides int, r0, y0, r1, y1 float64, col vec3) {
	for k := 0; k < sides; k++ {
		a0 := 2 * math.Pi * float64(k) / float64(sides)
		a1 := 2 * math.Pi * float64(k+1) / float64(sides)
		p0 := vec3{r0 * math.Cos(a0), y0, r0 * math.Sin(a0)}
		p1 := vec3{r0 * math.Cos(a1), y0, r0 * math.Sin(a1)}
		q0 := vec3{r1 * math.Cos(a0), y1, r1 * math.Sin(a0)}
		q1 := vec3{r1 * math.Cos(a1), y1, r1 * math.Sin(a1)}
		m.tri(p0, q1, p1, col)
		if r1 > 0 {
			m.tri(p0, q0, q1, col)
		}
	}
}

// disc adds a downward-facing cap at y (the underside of a cone layer).
func (m *meshBuilder) disc(sides int, r, y float64, col vec3) {
	c := vec3{0, y, 0}
	for k := 0; k < sides; k++ {
		a0 := 2 * math.Pi * float64(k) / float64(sides)
		a1 := 2 * math.Pi * float64(k+1) / float64(sides)
		m.tri(c, vec3{r * math.Cos(a0), y, r * math.Sin(a0)}, vec3{r * math.Cos(a1), y, r * math.Sin(a1)}, col)
	}
}

// icosahedron adds a lumpy icosahedron: radius r, squashed by sy, centred at (0, cy, 0), each
// vertex pushed in or out by up to `lump` of r (a fixed pattern, so every copy looks the same).
func (m *meshBuilder) icosahedron(r, sy, cy, lump float64, col vec3) {
	t := (1 + math.Sqrt(5)) / 2
	vs := []vec3{
		{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
		{0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
		{t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1},
	}
	faces := [][3]int{
		{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
	}
	for i := range vs {
		k := 1 + lump*math.Sin(float64(i)*2.39996+0.7)
		v := vs[i].normalize().scale(r * k)
		vs[i] = vec3{v[0], v[1]*sy + cy, v[2]}
	}
	for _, f := range faces {
		m.tri(vs[f[0]], vs[f[1]], vs[f[2]], col)
	}
}

// The built-in meshes' colours (linear RGB).
var (
	treeTrunk   = vec3{0.20, 0.11, 0.05}
	treeNeedles = vec3{0.04, 0.16, 0.05}
	rockColour  = vec3{0.32, 0.31, 0.29}
	bushColour  = vec3{0.09, 0.22, 0.06}
)

// instanceMesh returns the built-in mesh's vertices (nine floats each), one unit of scale in
// metres: a tree about 7 m tall, a rock about 1.6 m across, a bush about 2 m across.
func instanceMesh(kind Mesh) []float32 { return builtinMesh(kind, false) }

// draftInstanceMesh is kind's mesh for draft frames (Renderer.SetDraft): the same shape in a
// quarter to a third of the triangles — a tree's trunk and two needle cones with three and five
// facets and no undersides, a rock or bush an octahedron of the same extent. A draft frame is
// drawn at a reduced resolution, where a tree covers a pixel or two; on a software rasteriser the
// instances' vertices are most of such a frame.
func draftInstanceMesh(kind Mesh) []float32 { return builtinMesh(kind, true) }

// builtinMesh is instanceMesh, or draftInstanceMesh when draft is set.
func builtinMesh(kind Mesh, draft bool) []float32 {
	var m meshBuilder
	upper := treeNeedles.scale(1.15)
	switch {
	case kind == MeshTree && draft:
		m.cone(3, 0.22, -0.3, 0, 1.6, treeTrunk)
		m.cone(5, 1.7, 1.4, 0, 4.8, treeNeedles)
		m.cone(5, 1.2, 3.4, 0, 7.0, upper)
	case kind == MeshTree:
		m.cone(6, 0.22, -0.3, 0.16, 1.6, treeTrunk)
		m.cone(9, 1.7, 1.4, 0, 4.8, treeNeedles)
		m.disc(9, 1.7, 1.4, treeNeedles)
		m.cone(9, 1.2, 3.4, 0, 7.0, upper)
		m.disc(9, 1.2, 3.4, upper)
	case kind == MeshRock && draft:
		m.octahedron(0.8, 0.65, 0.15, rockColour)
	case kind == MeshRock:
		m.icosahedron(0.8, 0.65, 0.15, 0.18, rockColour)
	case kind == MeshBush && draft:
		m.octahedron(1.0, 0.7, 0.45, bushColour)
	case kind == MeshBush:
		m.icosahedron(1.0, 0.7, 0.45, 0.12, bushColour)
	}
	return m.v
}

// octahedron adds an octahedron of radius r squashed by sy, centred at (0, cy, 0): the draft
// stand-in for icosahedron's lumpy stones and bushes.
func (m *meshBuilder) octahedron(r, sy, cy float64, col vec3) {
	top, bot := vec3{0, r*sy + cy, 0}, vec3{0, -r*sy + cy, 0}
	ring := []vec3{{r, cy, 0}, {0, cy, r}, {-r, cy, 0}, {0, cy, -r}}
	for k := range ring {
		a, b := ring[k], ring[(k+1)%len(ring)]
		m.tri(a, top, b, col)
		m.tri(a, b, bot, col)
	}
}

// indexFlat turns a flat-shaded triangle list (nine floats a vertex, the three vertices of a
// triangle carrying its normal and colour) into shared vertices and indices for a pipeline that
// takes the normal and colour from each triangle's first (provoking) vertex (@interpolate(flat)):
// a triangle's first vertex must carry its normal and colour, the other two only their position,
// so the rings of a cone and the disc under it share their vertices. Each triangle is rotated
// (its winding kept) to the first vertex that needs the fewest new vertices. A tree's 144
// vertices become 40; a software rasteriser shades each index of a draw's batch once.
func indexFlat(tris []float32) (verts []float32, idx []uint32) {
	type pos [3]float32
	type full [9]float32
	byPos := map[pos]uint32{}
	byFull := map[full]uint32{}
	vertexAt := func(o int) full { return full(tris[o : o+9]) }
	add := func(v full) uint32 {
		k := uint32(len(verts) / 9)
		verts = append(verts, v[:]...)
		byFull[v] = k
		if _, ok := byPos[pos(v[:3])]; !ok {
			byPos[pos(v[:3])] = k
		}
		return k
	}
	for t := 0; t+27 <= len(tris); t += 27 {
		tri := [3]full{vertexAt(t), vertexAt(t + 9), vertexAt(t + 18)}
		best, bestNew := 0, 4
		for r := range 3 {
			n := 0
			if _, ok := byFull[tri[r]]; !ok {
				n++
			}
			for _, o := range []int{(r + 1) % 3, (r + 2) % 3} {
				if _, ok := byPos[pos(tri[o][:3])]; !ok {
					n++
				}
			}
			if n < bestNew {
				best, bestNew = r, n
			}
		}
		first, ok := byFull[tri[best]]
		if !ok {
			first = add(tri[best])
		}
		idx = append(idx, first)
		for _, o := range []int{(best + 1) % 3, (best + 2) % 3} {
			k, ok := byPos[pos(tri[o][:3])]
			if !ok {
				k = add(tri[o])
			}
			idx = append(idx, k)
		}
	}
	return verts, idx
}
