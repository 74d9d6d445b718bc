package gpu

import (
	"bytes"
	"context"
	"testing"

	"strata/field"
	"strata/stack"
)

// Repeat re-dispatches the resident tile: the weights must not change, and a Repeat before any
// Run is an error rather than a dispatch with nothing bound.
func TestWeightsRepeat(t *testing.T) {
	k := testWeightsKernel(t)
	defer k.Release()
	if err := k.Repeat(1); err == nil {
		t.Fatal("Repeat before Run succeeded")
	}
	w := newWeightsSetupRes(t, field.SampleDunesSized(64), stack.SampleDunes(), 0)
	target, err := k.dev.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
	if err != nil {
		t.Fatal(err)
	}
	defer target.Release()
	tile := field.Tiles(&w.fg, 64, w.sg.GradientStep)[0]
	wt, err := FieldTile(w.f, w.s.Channels(), tile)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Run(context.Background(), target, w.params, wt); err != nil {
		t.Fatal(err)
	}
	lo, hi, err := target.ReadWeights()
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Repeat(3); err != nil {
		t.Fatal(err)
	}
	lo2, hi2, err := target.ReadWeights()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lo, lo2) || !bytes.Equal(hi, hi2) {
		t.Error("weights changed after Repeat")
	}
}
