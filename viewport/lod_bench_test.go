package viewport

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"strata/field"
	"strata/noise"
)

// gridSource is a HeightSource over a plain height grid (benchmarks: no payload copy).
type gridSource struct {
	w, h int
	data []float32
}

func (g *gridSource) GridSize() (int, int)      { return g.w, g.h }
func (g *gridSource) HeightRow(j int) []float32 { return g.data[j*g.w : (j+1)*g.w] }
func (g *gridSource) Texel(i, j int) [4]float32 { return [4]float32{g.data[j*g.w+i], 0, 0, 1} }
func (g *gridSource) Lock()                     {}
func (g *gridSource) Unlock()                   {}

// BenchmarkLODTree8192 builds the LOD tree of an 8192² field, as a landscape's open does.
func BenchmarkLODTree8192(b *testing.B) {
	const n = 8192
	g := &gridSource{w: n, h: n, data: make([]float32, n*n)}
	for j := 0; j < n; j += 1 {
		for i := 0; i < n; i++ {
			g.data[j*n+i] = 100 * noise.FBM(float32(i), float32(j), 900, 3, 1)
		}
	}
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		newLODTree(g)
	}
}

// The interior fast path of a node's error is the general one's: the same vertices, the same
// float32 operations, on nodes of every level of a rough field.
func TestInnerErrorIsTheGeneralOne(t *testing.T) {
	const n = 1024
	g := &gridSource{w: n + 3, h: n + 5, data: make([]float32, (n+3)*(n+5))}
	for k := range g.data {
		g.data[k] = float32(noise.PCG(uint32(k))>>20) / 37
	}
	tree := &lodTree{w: g.w, h: g.h}
	row := func(j int) []float32 { return g.HeightRow(min(j, g.h-1)) }
	checked := 0
	for step := 2; step <= 16; step *= 2 {
		span := chunkCells * step
		for z0 := 0; z0+span <= g.h-1; z0 += span {
			for x0 := 0; x0+span <= g.w-1; x0 += span {
				if a, b := innerError(row, x0, z0, step), tree.edgeError(row, x0, z0, step, step/2); a != b {
					t.Fatalf("step %d node at (%d, %d): fast %v, general %v", step, x0, z0, a, b)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Fatalf("%d nodes checked", checked)
	}
}

// BenchmarkTreeWhileRead is a heightmap's open up to its LOD tree, three ways, on a 4096² PNG16
// of rough ground: the read alone; the read, then the tree over the whole grid (newLODTree, as
// SetScene builds it); the read with a TreeBuilder fed the rows as they complete, and its tree
// (docs/design.md "Progressive open"). On two idle cores the third takes the read's time plus
// the last rows' (the tree's work on the core inflate leaves); the second adds the tree's.
func BenchmarkTreeWhileRead(b *testing.B) {
	const n = 4096
	g := &field.Grid{W: n, H: n, Data: make([]float32, n*n)}
	for j := range n {
		for i := range n {
			g.Data[j*n+i] = 100 * noise.FBM(float32(i), float32(j), 300, 3, 1)
		}
	}
	path := filepath.Join(b.TempDir(), "h.png")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := field.EncodePNG16(f, g, [2]float64{-100, 100}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	opts := field.ImportOptions{Range: [2]float64{-100, 100}}
	read := func(b *testing.B, rows field.RowsFunc) *field.Grid {
		g, _, err := field.LoadHeightRows(context.Background(), path, opts, nil, rows)
		if err != nil {
			b.Fatal(err)
		}
		return g
	}
	b.Run("read", func(b *testing.B) {
		for range b.N {
			read(b, nil)
		}
	})
	b.Run("read-then-tree", func(b *testing.B) {
		for range b.N {
			g := read(b, nil)
			newLODTree(&gridSource{w: g.W, h: g.H, data: g.Data})
		}
	})
	b.Run("tree-while-read", func(b *testing.B) {
		for range b.N {
			var tb *TreeBuilder
			read(b, func(g *field.Grid, done int) {
				if tb == nil {
					tb, _ = NewTreeBuilder(g.W, g.H, func(j int) []float32 { return g.Data[j*g.W : (j+1)*g.W] })
				}
				tb.Rows(done)
			})
			if _, err := tb.Tree(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
