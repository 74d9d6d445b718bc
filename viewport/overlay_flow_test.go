package viewport

import (
	"context"
	"math"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// luma is an sRGB pixel's Rec. 709 luma, 0…255.
func luma(r, g, b uint8) float64 { return 0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b) }

// TestFlowOverlayVValley: the flow overlay over a V valley (two planes falling into a channel
// that falls toward −Z), its grid computed as the editor does (bake.InputMap: the flow input, the
// plane a flow rule reads), seen from above: the channel is brighter than the slopes beside it at
// every point down its length, and brighter downstream than near its head; with a density grid
// bound instead the flow mode draws nothing.
func TestFlowOverlayVValley(t *testing.T) {
	const n, size = 64, 256.0
	valley := func(x, z float64) float64 { return 0.5*math.Abs(x) + 0.2*(z+size/2) }
	s := heightScene(n, size, valley)
	base := flatTwoLayerScene()
	s.Controls, s.Layers = base.Controls, base.Layers

	hg := &field.Grid{W: n, H: n, Data: make([]float32, n*n)}
	for k := range hg.Data {
		hg.Data[k] = s.Height.Data[4*k]
	}
	f, err := field.New(field.Placement{Size: [2]float64{size, size}}, hg)
	if err != nil {
		t.Fatal(err)
	}
	geo, err := landscape.NewGeometry(stack.New(), f, 0)
	if err != nil {
		t.Fatal(err)
	}
	flow, err := bake.InputMap(context.Background(), &geo, f, stack.InputFlow, "", nil)
	if err != nil {
		t.Fatal(err)
	}

	const w, h = 128, 128
	r := newTestRenderer(t, w, h, s)
	r.SetCamera(MapCamera(s.Placement, s.HeightRange, 1))
	plain := render(t, r)
	if err := r.SetOverlayGrid(OverlayFlow, flow.W, flow.H, flow.Data); err != nil {
		t.Fatal(err)
	}
	r.SetOverlay(Overlay{Mode: OverlayFlow})
	img := render(t, r)

	// Every pixel's ground point, once; then the pixel nearest a world point.
	hits := make([][2]float64, w*h)
	ok := make([]bool, w*h)
	for py := range h {
		for px := range w {
			hit, k := r.PickGround(float64(px)+0.5, float64(py)+0.5)
			hits[py*w+px], ok[py*w+px] = [2]float64{hit.X, hit.Z}, k
		}
	}
	lumaAt := func(x, z float64) float64 {
		best, bd := -1, math.Inf(1)
		for k, p := range hits {
			if d := math.Hypot(p[0]-x, p[1]-z); ok[k] && d < bd {
				best, bd = k, d
			}
		}
		if bd > 4 {
			t.Fatalf("no pixel within 4 m of (%v, %v)", x, z)
		}
		c := img.RGBAAt(best%w, best/w)
		return luma(c.R, c.G, c.B)
	}
	var head, foot float64
	for _, z := range []float64{80, 40, 0, -40, -80} {
		ch := lumaAt(0, z)
		for _, x := range []float64{-48, 48} {
			if sl := lumaAt(x, z); ch < sl+30 {
				t.Errorf("z = %v m: the channel's luma %.0f, the slope's at x = %v m %.0f: the channel should be clearly brighter", z, ch, x, sl)
			}
		}
		t.Logf("z = %4.0f: channel luma %.0f, slopes %.0f / %.0f", z, ch, lumaAt(-48, z), lumaAt(48, z))
		if z == 80 {
			head = ch
		}
		foot = ch
	}
	if foot <= head {
		t.Errorf("the channel's luma %.0f downstream, %.0f near its head: more area should be brighter", foot, head)
	}
	if same, _, _ := compareImages(img, plain); same {
		t.Error("the flow overlay changed nothing")
	}

	// Another mode's grid bound: the flow overlay draws nothing rather than density as log10 m².
	if err := r.SetDensity(nil, flow.W, flow.H, make([]float32, len(flow.Data)), 1); err != nil {
		t.Fatal(err)
	}
	if same, frac, _ := compareImages(render(t, r), plain); !same {
		t.Errorf("flow mode with a density grid bound matches the plain frame on %.1f%% of pixels", 100*frac)
	}
}

// The flow ramp runs from log10 of a height texel's area to log10 of the field's, unless the
// overlay names its ends.
func TestFlowRange(t *testing.T) {
	o := Overlay{Mode: OverlayFlow}
	if lo, hi := o.flowRange([2]float64{1000, 500}, [2]float64{2, 5}); lo != 1 || math.Abs(hi-math.Log10(5e5)) > 1e-12 {
		t.Errorf("default range %v … %v, want 1 … log10(5e5)", lo, hi)
	}
	o.FlowMin, o.FlowMax = 2, 6
	if lo, hi := o.flowRange([2]float64{1000, 500}, [2]float64{2, 5}); lo != 2 || hi != 6 {
		t.Errorf("given range %v … %v, want 2 … 6", lo, hi)
	}
	o.FlowMin, o.FlowMax = 3, 3
	if lo, hi := o.flowRange([2]float64{1, 1}, [2]float64{1, 1}); lo != 0 || hi != 1 {
		t.Errorf("one-texel field, empty given range: %v … %v, want 0 … 1", lo, hi)
	}
}
