package gpu

import (
	"context"
	"math"
	"slices"
	"testing"

	"strata/field"
)

// flowGround is one of the flow tests' grounds, w×h.
func flowGround(name string, w, h int) *field.Grid {
	g := field.NewGrid(w, h)
	for j := range h {
		for i := range w {
			x, z := float64(i), float64(j)
			var v float64
			switch name {
			case "tilted plane":
				v = 100 - 0.5*x - 0.2*z
			case "V valley":
				v = 50 + 0.8*math.Abs(x-float64(w-1)/2) - 0.3*z
			case "noise hills":
				v = 60 - 0.1*x + 6*math.Sin(x*0.21)*math.Cos(z*0.17) + 4*math.Sin(z*0.33+x*0.05) + 2*math.Cos(x*0.5+z*0.4)
			case "terraces": // flats: every 8 m a shelf, draining through its lower edge
				v = math.Floor((100-0.5*x-0.3*z)/8) * 8
			case "hills with holes and pits": // non-finite texels are walls; bowls keep their area
				v = 60 + 6*math.Sin(x*0.21)*math.Cos(z*0.17) + 4*math.Sin(z*0.33+x*0.05)
				if (i*7+j*3)%23 == 0 {
					v = math.NaN()
				}
			}
			g.Set(i, j, float32(v))
		}
	}
	return g
}

func flowKernel(t *testing.T) *FlowKernel {
	t.Helper()
	k, err := testDevice(t).NewFlowKernel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Release)
	return k
}

// The GPU flow against field.Flow: on a tilted plane, a V valley, noise hills, terraced flats and
// hills with non-finite holes and pits, square and rectangular texels, every texel's log10 area
// within 1e-4 of Go's (the sums are f32 and taken in another order: seen ≤ 1e-6); two GPU
// routings write the same bytes, and so do the two accumulations (route: one wave a dispatch;
// routeFront: a worklist of 16×16 tiles, each swept up to 16 sub-waves a step).
func TestFlowGPUMatchesGo(t *testing.T) {
	k := flowKernel(t)
	for _, name := range []string{"tilted plane", "V valley", "noise hills", "terraces", "hills with holes and pits"} {
		for _, texel := range [][2]float64{{1, 1}, {2, 1}} {
			g := flowGround(name, 96, 80)
			want, err := field.Flow(context.Background(), g, texel)
			if err != nil {
				t.Fatal(err)
			}
			got, st, err := k.Route(context.Background(), g, texel)
			if err != nil {
				t.Fatal(err)
			}
			again, _, err := k.Route(context.Background(), g, texel)
			if err != nil || !slices.Equal(again.Data, got.Data) {
				t.Fatalf("%s %v: a second GPU routing gives other bytes (%v)", name, texel, err)
			}
			// One wave a dispatch (route) and the worklist of tiles (routeFront): the same sums.
			flowTiles = false
			plain, pst, err := k.Route(context.Background(), g, texel)
			flowTiles = true
			if err != nil || !slices.Equal(plain.Data, got.Data) {
				t.Fatalf("%s %v: route and routeFront give other bytes (%v)", name, texel, err)
			}
			if pst.Waves < st.Waves {
				t.Errorf("%s %v: routeFront took %d steps, route %d waves", name, texel, st.Waves, pst.Waves)
			}
			worst := 0.0
			for i := range want.Data {
				d := math.Abs(float64(got.Data[i]) - float64(want.Data[i]))
				if !(d <= 1e-4) {
					t.Fatalf("%s %v: texel (%d, %d): GPU %v, Go %v", name, texel, i%g.W, i/g.W, got.Data[i], want.Data[i])
				}
				worst = max(worst, d)
			}
			t.Logf("%s %v: worst |Δlog10| %.3g, %d flat passes, %d waves", name, texel, worst, st.FlatPasses, st.Waves)
		}
	}
}
