package gpu

import (
	"bytes"
	"context"
	"image"
	"testing"

	"strata/stack"
)

// The resident path writes the bytes the tile-by-tile path writes: the whole field in one
// dispatch, a partial rect, after an edit uploaded by rows; and its density is the tiled density.
func TestResidentMatchesTiles(t *testing.T) {
	ctx := context.Background()
	d := testDevice(t)
	s := stack.StressStack()
	w := newWeightsSetup(t, testField(t, 150, 2), s)
	W, H := uint32(w.fg.WeightsW), uint32(w.fg.WeightsH)
	k := testWeightsKernel(t)
	defer k.Release()
	tiled, err := d.NewWeightsTarget(W, H)
	if err != nil {
		t.Fatal(err)
	}
	defer tiled.Release()
	resident, err := d.NewWeightsTarget(W, H)
	if err != nil {
		t.Fatal(err)
	}
	defer resident.Release()
	runTiled := func() (lo, hi []byte) {
		for _, wt := range w.wtiles(t, 64) {
			if err := k.Run(ctx, tiled, w.params, wt); err != nil {
				t.Fatal(err)
			}
		}
		lo, hi, err := tiled.ReadWeights()
		if err != nil {
			t.Fatal(err)
		}
		return lo, hi
	}
	fb := d.NewFieldBuffers()
	defer fb.Release()
	if _, err := fb.Upload(w.f, s.Channels(), image.Rectangle{}); err != nil {
		t.Fatal(err)
	}
	all := image.Rect(0, 0, int(W), int(H))
	if err := k.RunResident(ctx, resident, w.params, fb, all); err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi := runTiled()
	lo, hi, err := resident.ReadWeights()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
		t.Fatal("the resident whole-field dispatch differs from the tiled evaluation")
	}

	// Edit a channel in one corner, upload only its rows, re-run only that corner.
	snow := w.f.Channels["mask.snow"]
	edit := image.Rect(10, 12, 40, 33)
	for j := edit.Min.Y; j < edit.Max.Y; j++ {
		for i := edit.Min.X; i < edit.Max.X; i++ {
			snow.Set(i, j, 1-snow.At(i, j))
		}
	}
	if _, err := fb.Upload(w.f, s.Channels(), edit); err != nil {
		t.Fatal(err)
	}
	// The weights texels the edit reaches: the grids match here, plus the slope taps' reach.
	reach := edit.Inset(-4).Intersect(all)
	if err := k.RunResident(ctx, resident, w.params, fb, reach); err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi = runTiled()
	if lo, hi, err = resident.ReadWeights(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lo, wantLo) || !bytes.Equal(hi, wantHi) {
		t.Fatal("after an edit uploaded by rows, the resident weights differ from a fresh tiled evaluation")
	}

	// Density: resident over the whole grid equals the tiled density, maximum included.
	sk, err := d.NewScatterKernel()
	if err != nil {
		t.Fatal(err)
	}
	defer sk.Release()
	pp, err := stack.PackPopulation(s, 0, w.sg)
	if err != nil {
		t.Fatal(err)
	}
	wantMax, err := sk.Density(ctx, pp, W, H, tiled, w.wtiles(t, 64))
	if err != nil {
		t.Fatal(err)
	}
	want, err := sk.ReadDensity()
	if err != nil {
		t.Fatal(err)
	}
	gotMax, err := sk.DensityResident(ctx, pp, W, H, resident, fb, all)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sk.ReadDensity()
	if err != nil {
		t.Fatal(err)
	}
	if gotMax != wantMax || wantMax == 0 {
		t.Errorf("resident density maximum %v, tiled %v", gotMax, wantMax)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("density texel %d: resident %v, tiled %v", i, got[i], want[i])
		}
	}
}
