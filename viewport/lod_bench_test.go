package viewport

import (
	"testing"

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
