package viewport

import (
	"context"
	"image"
	"math"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// hueOf is the hue in degrees of an RGB colour and its saturation (max−min)/max.
func hueOf(r, g, b uint8) (hue, sat float64) {
	R, G, B := float64(r), float64(g), float64(b)
	mx, mn := math.Max(R, math.Max(G, B)), math.Min(R, math.Min(G, B))
	if mx == 0 || mx == mn {
		return 0, 0
	}
	d := mx - mn
	switch mx {
	case R:
		hue = math.Mod((G-B)/d, 6)
	case G:
		hue = (B-R)/d + 2
	default:
		hue = (R-G)/d + 4
	}
	hue *= 60
	if hue < 0 {
		hue += 360
	}
	return hue, d / mx
}

func hueDist(a, b float64) float64 {
	d := math.Mod(math.Abs(a-b), 360)
	return math.Min(d, 360-d)
}

// TestAspectOverlayCone: the aspect overlay over a cone, its grid computed as the editor does
// (bake.InputMap: the rule input's aspect), seen from above: the slopes facing north, east, south
// and west show four distinct hues near the wheel's (0°, 90°, 180°, 270°), the flat ground round
// the cone's foot is grey, and with a density grid bound instead the aspect mode draws nothing.
func TestAspectOverlayCone(t *testing.T) {
	const n, size = 64, 256.0
	cone := func(x, z float64) float64 { return math.Max(0, 60-0.8*math.Hypot(x, z)) }
	s := heightScene(n, size, cone)
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
	asp, err := bake.InputMap(context.Background(), &geo, f, stack.InputAspect, "", nil)
	if err != nil {
		t.Fatal(err)
	}

	const w, h = 128, 128
	r := newTestRenderer(t, w, h, s)
	r.SetCamera(MapCamera(s.Placement, s.HeightRange, 1))
	plain := render(t, r)
	if err := r.SetOverlayGrid(OverlayAspect, asp.W, asp.H, asp.Data); err != nil {
		t.Fatal(err)
	}
	r.SetOverlay(Overlay{Mode: OverlayAspect})
	img := render(t, r)

	// The pixel nearest each world point, found by picking every pixel.
	nearest := func(x, z float64) image.Point {
		best, bd := image.Point{-1, -1}, math.Inf(1)
		for py := 0; py < h; py++ {
			for px := 0; px < w; px++ {
				hit, ok := r.PickGround(float64(px)+0.5, float64(py)+0.5)
				if d := math.Hypot(hit.X-x, hit.Z-z); ok && d < bd {
					best, bd = image.Point{px, py}, d
				}
			}
		}
		if bd > 6 {
			t.Fatalf("no pixel within 6 m of (%v, %v)", x, z)
		}
		return best
	}
	var hues [4]float64
	for k, name := range []string{"north", "east", "south", "west"} {
		a := float64(k) * 90 * math.Pi / 180
		p := nearest(40*math.Sin(a), 40*math.Cos(a)) // 40 m out along the face's downhill direction
		c := img.RGBAAt(p.X, p.Y)
		hue, sat := hueOf(c.R, c.G, c.B)
		hues[k] = hue
		t.Logf("%s: %v hue %.0f sat %.2f", name, c, hue, sat)
		if sat < 0.3 || hueDist(hue, float64(k)*90) > 30 {
			t.Errorf("%s face at %v: colour %v, hue %.0f° saturation %.2f; want the wheel's %d°", name, p, c, hue, sat, k*90)
		}
	}
	for i := range hues {
		for j := i + 1; j < 4; j++ {
			if hueDist(hues[i], hues[j]) < 45 {
				t.Errorf("faces %d and %d show hues %.0f° and %.0f°: not distinct", i, j, hues[i], hues[j])
			}
		}
	}
	p := nearest(0, 110) // the flat ground beyond the foot (r > 75 m)
	if c := img.RGBAAt(p.X, p.Y); func() bool { _, sat := hueOf(c.R, c.G, c.B); return sat > 0.08 }() {
		t.Errorf("flat ground at %v is %v: want grey", p, c)
	}

	// Another mode's grid bound: the aspect overlay draws nothing rather than density as degrees.
	if err := r.SetDensity(nil, asp.W, asp.H, make([]float32, len(asp.Data)), 1); err != nil {
		t.Fatal(err)
	}
	if ok, frac, _ := compareImages(render(t, r), plain); !ok {
		t.Errorf("aspect mode with a density grid bound matches the plain frame on %.1f%% of pixels", 100*frac)
	}
	if err := r.SetOverlayGrid(OverlayDensity, 1, 1, []float32{0}); err == nil {
		t.Error("SetOverlayGrid(OverlayDensity): no error")
	}
}
