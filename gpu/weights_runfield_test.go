package gpu

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"strata/field"
	"strata/stack"
)

// TestWeightsRunFieldMatchesRun: RunField (blocks cut straight into the upload) writes the same
// bytes as Run(FieldTile(...)), for the stress stack (two channels bound) and the dunes stack
// (none), on a ragged 64-texel tiling, and a tile whose stack changed between runs (params
// rewritten, not only head lanes 2–3) still gives the right bytes.
func TestWeightsRunFieldMatchesRun(t *testing.T) {
	k := testWeightsKernel(t)
	defer k.Release()
	f := testField(t, 150, 2)
	for _, s := range []*stack.Stack{stack.StressStack(), stack.SampleDunes(), stack.StressStack()} {
		w := newWeightsSetup(t, f, s)
		want, wantHi := w.gpu(t, k, 64)
		target, err := k.dev.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
		if err != nil {
			t.Fatal(err)
		}
		for _, tile := range field.Tiles(&w.fg, 64, w.sg.GradientStep) {
			if err := k.RunField(context.Background(), target, w.params, f, s.Channels(), tile); err != nil {
				t.Fatal(err)
			}
		}
		lo, hi, err := target.ReadWeights()
		target.Release()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(lo, want) || !bytes.Equal(hi, wantHi) {
			eq, worst, _ := compareWeights(append(lo, hi...), append(want, wantHi...))
			t.Fatalf("%d layers: RunField differs from Run: %.4f%% equal, worst %d", len(s.Layers), 100*eq, worst)
		}
	}
	// A channel the field lacks is an error naming it, as FieldTile's.
	s := stack.StressStack()
	w := newWeightsSetup(t, f, s)
	target, err := k.dev.NewWeightsTarget(uint32(w.fg.WeightsW), uint32(w.fg.WeightsH))
	if err != nil {
		t.Fatal(err)
	}
	defer target.Release()
	tile := field.Tiles(&w.fg, 64, w.sg.GradientStep)[0]
	err = k.RunField(context.Background(), target, w.params, f, []string{"mask.snow", "nope"}, tile)
	if err == nil || !bytes.Contains([]byte(fmt.Sprint(err)), []byte(`"nope"`)) {
		t.Fatalf("missing channel: err %v", err)
	}
}
