package bake

import (
	"bytes"
	"context"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// A level of the pyramid evaluated on its own grid is the full grid subsampled (docs/design.md
// "Levels"): the same bytes at the same world positions, for the Go reference and the GPU, in any
// tiling, on a weights grid that is not the height grid too, and on grids whose sides are not
// multiples of the stride.
func TestLevelsSubsampleTheGrid(t *testing.T) {
	g, err := OpenGPU(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	for _, tc := range []struct {
		name string
		s    *stack.Stack
		f    *field.Field
		res  float64
	}{
		{"dunes", stack.SampleDunes(), field.SampleDunesSized(203), 0},
		{"stress", stack.StressStack(), StressField(150), 0},
		{"stress, finer weights grid", stack.StressStack(), StressField(120), 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := mustRef(t, tc.s, tc.f, Options{Resolution: tc.res})
			fullGPU, err := g.Weights(context.Background(), tc.s, tc.f, Options{Resolution: tc.res})
			if err != nil {
				t.Fatal(err)
			}
			base, err := landscape.NewGeometry(tc.s, tc.f, tc.res)
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= 3; k++ {
				want := full.Level(k)
				geo := base.Level(k) // landscape.TestGeometryLevel holds it to the level's own geometry
				if geo.Field.WeightsW != want.W || geo.Field.WeightsH != want.H {
					t.Fatalf("level %d: grid %d×%d, the subsample %d×%d", k, geo.Field.WeightsW, geo.Field.WeightsH, want.W, want.H)
				}
				for _, ts := range []int{16, 0} {
					got := landscape.NewWeights(want.W, want.H)
					if err := ReferenceTiles(context.Background(), tc.s, tc.f, &geo, got, geo.Tiles(ts), Options{}); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Lo, want.Lo) || !bytes.Equal(got.Hi, want.Hi) {
						t.Errorf("level %d, tiles of %d: the Go reference differs from the subsampled full grid", k, ts)
					}
				}
				if err := g.RunTiles(context.Background(), tc.s, tc.f, &geo, geo.Tiles(32), Options{}); err != nil {
					t.Fatal(err)
				}
				got, err := g.Read()
				if err != nil {
					t.Fatal(err)
				}
				// The GPU's level is its own full grid subsampled, byte for byte (the same float32
				// operations at the same positions), and within the twins' tolerance of the Go's.
				if sub := fullGPU.Level(k); !bytes.Equal(got.Lo, sub.Lo) || !bytes.Equal(got.Hi, sub.Hi) {
					eq, worst := CompareWeights(got, sub)
					t.Errorf("level %d on the GPU: %.4f%% of bytes equal its full grid subsampled, worst %d; want all", k, 100*eq, worst)
				}
				if eq, worst := CompareWeights(got, want); eq < 0.99 || worst > 2 {
					t.Errorf("level %d on the GPU: %.4f%% of bytes equal the Go reference's, worst %d; want ≥ 99%%, ≤ 2", k, 100*eq, worst)
				}
			}
		})
	}
}
