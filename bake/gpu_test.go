package bake

import (
	"context"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// The bake's GPU path agrees with the Go reference (issue 4: ≥ 99% of bytes equal, none off by
// more than 2) and its tilings agree with each other byte for byte.
func TestGPUWeightsMatchReference(t *testing.T) {
	g, err := OpenGPU(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	t.Logf("adapter: %s", g.Dev)
	for _, tc := range []struct {
		name string
		s    *stack.Stack
		f    *field.Field
	}{
		{"dunes", stack.SampleDunes(), field.SampleDunesSized(160)},
		{"stress", stack.StressStack(), StressField(160)},
		{"aspect", stack.AspectStack(), plateauField(160)},
		{"flow", stack.FlowStack(), plateauField(160)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := mustRef(t, tc.s, tc.f, Options{})
			var first *landscape.Weights
			for _, ts := range []int{64, 128, 0} {
				got, err := g.Weights(context.Background(), tc.s, tc.f, Options{TileSize: ts})
				if err != nil {
					t.Fatal(err)
				}
				checkSum255(t, got)
				equal, worst := 0, 0
				for i := range ref.Lo {
					for _, d := range []int{int(got.Lo[i]) - int(ref.Lo[i]), int(got.Hi[i]) - int(ref.Hi[i])} {
						if d < 0 {
							d = -d
						}
						if d == 0 {
							equal++
						}
						worst = max(worst, d)
					}
				}
				share := float64(equal) / float64(2*len(ref.Lo))
				if share < 0.99 || worst > 2 {
					t.Errorf("tile %d: %.4f%% of bytes equal, worst %d; want ≥ 99%%, ≤ 2", ts, 100*share, worst)
				}
				if first == nil {
					first = got
				} else if string(first.Lo) != string(got.Lo) || string(first.Hi) != string(got.Hi) {
					t.Errorf("GPU tile size %d differs from tile size 64", ts)
				}
			}
		})
	}
}
