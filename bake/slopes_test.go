package bake

import (
	"bytes"
	"context"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/scatter"
	"strata/stack"
)

// Kept slopes are the numbers the evaluators sample: weights and densities read through them are
// byte for byte the ones sampled, for a stack reading slope alone and slope with curvature.
func TestSlopesChangeNothing(t *testing.T) {
	ctx := context.Background()
	f := StressField(96)
	for _, st := range []*stack.Stack{stack.SampleDunes(), stack.StressStack()} {
		g, err := landscape.NewGeometry(st, f, 0)
		if err != nil {
			t.Fatal(err)
		}
		var sl Slopes
		grid, err := sl.Fill(ctx, st, f, &g)
		if err != nil {
			t.Fatal(err)
		}
		tiles := g.Tiles(32)
		want := landscape.NewWeights(g.Field.WeightsW, g.Field.WeightsH)
		got := landscape.NewWeights(g.Field.WeightsW, g.Field.WeightsH)
		if err := ReferenceTiles(ctx, st, f, &g, want, tiles, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := ReferenceTiles(ctx, st, f, &g, got, tiles, Options{Slopes: grid}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Lo, want.Lo) || !bytes.Equal(got.Hi, want.Hi) {
			t.Errorf("%d layers: weights with kept slopes differ", len(st.Layers))
		}
		// And they are read: slopes of 89° everywhere change the picture.
		steep := field.NewGrid(grid.W, grid.H)
		for i := range steep.Data {
			steep.Data[i] = 89
		}
		if err := ReferenceTiles(ctx, st, f, &g, got, tiles, Options{Slopes: steep}); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(got.Lo, want.Lo) {
			t.Errorf("%d layers: the kept slopes are not read", len(st.Layers))
		}
		sg := scatter.Geometry{Field: g.Field, Stack: g.Stack}
		for p := range st.Populations {
			a, b := field.NewGrid(g.Field.WeightsW, g.Field.WeightsH), field.NewGrid(g.Field.WeightsW, g.Field.WeightsH)
			if _, err := scatter.DensityTiles(ctx, st, p, f, sg, want.Lo, want.Hi, a, tiles, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := scatter.DensityTiles(ctx, st, p, f, sg, want.Lo, want.Hi, b, tiles, grid); err != nil {
				t.Fatal(err)
			}
			for i := range a.Data {
				if a.Data[i] != b.Data[i] {
					t.Fatalf("population %d: density at %d is %v with kept slopes, %v sampled", p, i, b.Data[i], a.Data[i])
				}
			}
		}
	}
}

// Fill keeps its grid for one height grid and geometry, and computes it again after Reset, for
// another height grid or another gradient step.
func TestSlopesKeptUntilTheGroundChanges(t *testing.T) {
	ctx := context.Background()
	st := stack.SampleDunes()
	f := StressField(64)
	g, err := landscape.NewGeometry(st, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sl Slopes
	a, err := sl.Fill(ctx, st, f, &g)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := sl.Fill(ctx, st, f, &g); b != a {
		t.Error("a second Fill computed the slopes again")
	}
	sl.Reset()
	if b, _ := sl.Fill(ctx, st, f, &g); b == a {
		t.Error("Fill after Reset kept the old slopes")
	}
	c, _ := sl.Fill(ctx, st, f, &g)
	f2 := StressField(64)
	if d, _ := sl.Fill(ctx, st, f2, &g); d == c {
		t.Error("Fill over another height grid kept the old slopes")
	}
	g2 := g
	g2.Stack.GradientStep *= 2
	e, _ := sl.Fill(ctx, st, f2, &g)
	if h, _ := sl.Fill(ctx, st, f2, &g2); h == e {
		t.Error("Fill under another gradient step kept the old slopes")
	}
	small := field.NewGrid(3, 3)
	w := landscape.NewWeights(g.Field.WeightsW, g.Field.WeightsH)
	if err := ReferenceTiles(ctx, st, f, &g, w, g.Tiles(32), Options{Slopes: small}); err == nil {
		t.Error("slopes of another size were taken")
	}
}

// After the height changed in a rectangle, ResetRect of the weights texels whose taps read it
// makes Fill compute those again: the grid is a whole fresh Fill's, value for value, and the
// texels far from the change are not computed again (a wrong rectangle would be seen).
func TestSlopesResetRect(t *testing.T) {
	ctx := context.Background()
	f := field.SampleDunesSized(600) // 3 × 3 slope tiles
	st := stack.SampleDunes()
	g, err := landscape.NewGeometry(st, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sl Slopes
	kept, err := sl.Fill(ctx, st, f, &g)
	if err != nil {
		t.Fatal(err)
	}
	kept.Data[len(kept.Data)-1] = -1 // a marker in the far corner's tile: it must survive
	before := kept.Clone()           // Fill computes into the kept grid
	// A hill near the first corner, height texels 100…140.
	for j := 100; j < 140; j++ {
		for i := 100; i < 140; i++ {
			f.Height.Data[j*f.Height.W+i] += 5
		}
	}
	d := field.NewDirtySet(g.Field, field.DefaultTileSize, g.Stack.GradientStep)
	mn, ts := f.Placement.Min(), f.TexelSize()
	r, ok := d.TexelRect(mn[0]+100*ts[0], mn[1]+100*ts[1], mn[0]+140*ts[0], mn[1]+140*ts[1])
	if !ok {
		t.Fatal("the hill is outside the field")
	}
	sl.ResetRect(r)
	got, err := sl.Fill(ctx, st, f, &g)
	if err != nil {
		t.Fatal(err)
	}
	var fresh Slopes
	want, err := fresh.Fill(ctx, st, f, &g)
	if err != nil {
		t.Fatal(err)
	}
	if got.Data[len(got.Data)-1] != -1 {
		t.Error("ResetRect of one corner computed the far corner again")
	}
	got.Data[len(got.Data)-1] = want.Data[len(want.Data)-1]
	changed := 0
	for k := range want.Data {
		if got.Data[k] != want.Data[k] {
			t.Fatalf("slope texel %d is %v after ResetRect, a fresh Fill gives %v", k, got.Data[k], want.Data[k])
		}
		if want.Data[k] != before.Data[k] && k != len(want.Data)-1 {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("the hill changed no slope: the test shows nothing")
	}
}
