package bake

import (
	"context"
	"testing"

	"strata/landscape"
	"strata/stack"
)

// The bake's scatter on the GPU and on the Go reference produce the same forest: the same spacing
// (the max density agrees) and, instance by instance, the same matrices bit for bit. The GPU's
// weights and density agree with the reference's to a byte / 1e-5 (not bit for bit), so a site
// whose acceptance draw falls within that of its density may go either way: at most 0.1% of the
// instances may differ. Placement from one density is bit-exact (gpu.TestScatterPlaceMatchesReference).
func TestScatterGPUMatchesReference(t *testing.T) {
	ctx := context.Background()
	s, f := stack.StressStack(), StressField(128)
	geo, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	ref := &landscape.Landscape{Stack: s, Field: f, Geometry: geo}
	if ref.Weights, err = Reference(ctx, s, f, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := ScatterReference(ctx, ref, Options{TileSize: 64}); err != nil {
		t.Fatal(err)
	}
	g, err := OpenGPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	got := &landscape.Landscape{Stack: s, Field: f, Geometry: geo}
	if err := g.Bake(ctx, got, Options{TileSize: 64}); err != nil {
		t.Fatal(err)
	}
	if eq, _ := CompareWeights(got.Weights, ref.Weights); eq != 1 {
		t.Logf("GPU weights equal the reference on %.4f%% of bytes; scatter reads each side's own", 100*eq)
	}
	if len(ref.Scatter) != 1 || len(got.Scatter) != 1 {
		t.Fatalf("populations: reference %d, GPU %d, want 1", len(ref.Scatter), len(got.Scatter))
	}
	r, c := ref.Scatter[0], got.Scatter[0]
	if r.Count < 50 {
		t.Fatalf("the reference placed only %d shrubs; the test field should grow a few hundred", r.Count)
	}
	if r.Spacing != c.Spacing {
		t.Fatalf("spacing: reference %v, GPU %v", r.Spacing, c.Spacing)
	}
	common := commonInstances(r.Matrices, c.Matrices)
	if limit := r.Count / 1000; r.Count-common > limit || c.Count-common > limit {
		t.Errorf("reference %d, GPU %d instances, %d identical; want all but %d", r.Count, c.Count, common, limit)
	}
}

// commonInstances counts the matrices (16 floats, compared bit for bit) present in both pools.
func commonInstances(a, b []float32) int {
	key := func(m []float32) [16]float32 { var k [16]float32; copy(k[:], m); return k }
	seen := map[[16]float32]int{}
	for i := 0; i+16 <= len(a); i += 16 {
		seen[key(a[i:])]++
	}
	n := 0
	for i := 0; i+16 <= len(b); i += 16 {
		if k := key(b[i:]); seen[k] > 0 {
			seen[k]--
			n++
		}
	}
	return n
}
