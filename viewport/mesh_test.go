package viewport

import "testing"

// TestIndexFlatSameTriangles: the indexed meshes draw the triangles of the flat lists they come
// from — each triangle's three positions in the same winding (rotated at most), its first vertex
// carrying the face's normal and colour — with fewer vertices; the draft meshes are lighter.
func TestIndexFlatSameTriangles(t *testing.T) {
	for _, m := range []Mesh{MeshTree, MeshRock, MeshBush} {
		for _, draft := range []bool{false, true} {
			tris := instanceMesh(m)
			if draft {
				tris = draftInstanceMesh(m)
			}
			verts, idx := indexFlat(tris)
			if len(idx) != len(tris)/9 {
				t.Fatalf("%s draft %v: %d indices for %d vertices", m, draft, len(idx), len(tris)/9)
			}
			if len(verts)/9 >= len(tris)/9 {
				t.Errorf("%s draft %v: %d shared vertices for a list of %d", m, draft, len(verts)/9, len(tris)/9)
			}
			at := func(k uint32) []float32 { return verts[9*k : 9*k+9] }
			for tr := 0; tr < len(idx)/3; tr++ {
				src := [3][]float32{tris[27*tr : 27*tr+9], tris[27*tr+9 : 27*tr+18], tris[27*tr+18 : 27*tr+27]}
				got := [3][]float32{at(idx[3*tr]), at(idx[3*tr+1]), at(idx[3*tr+2])}
				rotated := false
				for r := range 3 {
					same := true
					for k := range 3 {
						a, b := got[k], src[(r+k)%3]
						same = same && a[0] == b[0] && a[1] == b[1] && a[2] == b[2]
					}
					rotated = rotated || same
				}
				if !rotated {
					t.Fatalf("%s draft %v: triangle %d is %v, want a rotation of %v", m, draft, tr, got, src)
				}
				for c := 3; c < 9; c++ { // the face's normal and colour, on its first vertex
					if got[0][c] != src[0][c] {
						t.Fatalf("%s draft %v: triangle %d's first vertex carries %v, want the face's %v", m, draft, tr, got[0][3:], src[0][3:])
					}
				}
			}
		}
	}
	if full, draft := len(instanceMesh(MeshTree))/27, len(draftInstanceMesh(MeshTree))/27; 3*draft > full {
		t.Errorf("the draft tree has %d triangles, the tree %d: want at most a third", draft, full)
	}
}
