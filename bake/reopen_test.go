package bake

import (
	"context"
	"path/filepath"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
	"strata/terraindata"
)

// A container re-places the forest its bake placed, exactly, on the Go reference and on the GPU.
func TestPlaceFromContainer(t *testing.T) {
	ctx := context.Background()
	s, f := stack.SampleDunes(), field.SampleDunesSized(200)
	geo, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := &landscape.Landscape{Stack: s, Field: f, Geometry: geo}
	if l.Weights, err = Reference(ctx, s, f, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := ScatterReference(ctx, l, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(l.Scatter) != 1 || l.Scatter[0].Count == 0 {
		t.Fatalf("the sample placed %+v; want one population with trees", l.Scatter)
	}
	path := filepath.Join(t.TempDir(), "d.terrainData")
	if err := landscape.Write(path, l); err != nil {
		t.Fatal(err)
	}
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := scatter.SortMatrices(l.Scatter[0].Matrices)

	cpu, err := PlaceFromContainer(ctx, c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(cpu[0].Matrices), want); i >= 0 || cpu[0].Count != l.Scatter[0].Count {
		t.Errorf("Go re-placement: %d instances, differs at float %d; bake had %d", cpu[0].Count, i, l.Scatter[0].Count)
	}

	g, err := OpenGPU(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	gp, err := PlaceFromContainer(ctx, c, nil, g.Dev)
	if err != nil {
		t.Fatal(err)
	}
	defer gp[0].Release()
	m, err := gp[0].Kernel.ReadMatrices()
	if err != nil {
		t.Fatal(err)
	}
	if i := scatter.FirstDifference(scatter.SortMatrices(m), want); i >= 0 || gp[0].Count != l.Scatter[0].Count {
		t.Errorf("GPU re-placement: %d instances, differs at float %d; bake had %d", gp[0].Count, i, l.Scatter[0].Count)
	}
}
