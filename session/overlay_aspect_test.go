package session

import (
	"context"
	"image"
	"math"
	"path/filepath"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// hue is an RGB colour's hue in degrees and its saturation (max−min)/max.
func hue(r, g, b uint8) (h, sat float64) {
	R, G, B := float64(r), float64(g), float64(b)
	mx, mn := math.Max(R, math.Max(G, B)), math.Min(R, math.Min(G, B))
	if mx == 0 || mx == mn {
		return 0, 0
	}
	d := mx - mn
	switch mx {
	case R:
		h = math.Mod((G-B)/d, 6)
	case G:
		h = (B-R)/d + 2
	default:
		h = (R-G)/d + 4
	}
	if h *= 60; h < 0 {
		h += 360
	}
	return h, d / mx
}

// TestAspectOverlay: the editor's aspect overlay over a cone (a landscape baked and opened) shows
// the north, east, south and west faces in four distinct hues near the wheel's 0°, 90°, 180° and
// 270°; it is bound by the pass after the overlay is chosen, and a sculpt-free rule edit keeps it.
func TestAspectOverlay(t *testing.T) {
	const n, size = 64, 256.0
	p := field.Placement{Size: [2]float64{size, size}}
	g := &field.Grid{W: n, H: n, Data: make([]float32, n*n)}
	for j := range n {
		for i := range n {
			x, z := -size/2+(float64(i)+0.5)*size/n, -size/2+(float64(j)+0.5)*size/n
			g.Data[j*n+i] = float32(math.Max(0, 60-0.8*math.Hypot(x, z)))
		}
	}
	f, err := field.New(p, g)
	if err != nil {
		t.Fatal(err)
	}
	st := stack.New()
	st.Layers = []stack.Layer{stack.NewLayer("ground"), stack.NewLayer("rock")}
	st.Layers[1].Rules = []stack.Rule{{Input: stack.InputSlope, Min: stack.F(80)}}
	path := filepath.Join(t.TempDir(), "cone.terrainData")
	ctx := context.Background()
	if _, err := bake.Rebake(ctx, &landscape.Landscape{Field: f, Stack: st}, path, bake.RebakeOptions{EvalOptions: bake.EvalOptions{CPU: true}}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{Evaluator: CPU, Width: 128, Height: 128})
	if err := h.s.OpenContainer(ctx, path); err != nil {
		t.Fatal(err)
	}
	h.s.FitCamera(true)
	plain := h.waitFrame(h.s.Version()).Image

	m := h.mark()
	h.s.SetOverlay(Overlay{Mode: viewport.OverlayAspect})
	// Frames until one shows the wheel: the overlay is chosen at once, its grid bound by the
	// pass that follows (each wait is on a frame event).
	coloured := func(img *image.RGBA) int {
		k := 0
		for i := 0; i+3 < len(img.Pix); i += 4 {
			if _, sat := hue(img.Pix[i], img.Pix[i+1], img.Pix[i+2]); sat > 0.3 {
				k++
			}
		}
		return k
	}
	img := plain
	if f := h.fullFrameWhere(m, func(f *Frame) bool { return coloured(f.Image) > 1000 }); f != nil {
		img = f.Image
	}
	if c := coloured(img); c <= 1000 {
		t.Fatalf("the aspect overlay colours %d pixels", c)
	}
	w, ht := img.Bounds().Dx(), img.Bounds().Dy()
	at := func(x, z float64) (float64, float64) {
		best, bd := [2]int{}, math.Inf(1)
		for py := 0; py < ht; py++ {
			for px := 0; px < w; px++ {
				hit, ok := h.s.PickGround((float64(px)+0.5)/float64(w), (float64(py)+0.5)/float64(ht))
				if d := math.Hypot(hit.X-x, hit.Z-z); ok && d < bd {
					best, bd = [2]int{px, py}, d
				}
			}
		}
		c := img.RGBAAt(best[0], best[1])
		return hue(c.R, c.G, c.B)
	}
	var hues [4]float64
	for k, name := range []string{"north", "east", "south", "west"} {
		a := float64(k) * math.Pi / 2
		hh, sat := at(40*math.Sin(a), 40*math.Cos(a))
		hues[k] = hh
		d := math.Mod(math.Abs(hh-float64(k)*90), 360)
		if sat < 0.3 || math.Min(d, 360-d) > 30 {
			t.Errorf("%s face: hue %.0f° saturation %.2f, want the wheel's %d°", name, hh, sat, k*90)
		}
	}
	if _, sat := at(0, 110); sat > 0.08 {
		t.Errorf("the flat ground beyond the foot has saturation %.2f: want grey", sat)
	}
	// A rule edit moves no ground: the grid bound stays (no recomputation), the picture the same.
	h.s.pipe.passMu.Lock()
	key := h.s.pipe.derivedFor
	h.s.pipe.passMu.Unlock()
	st2 := h.s.Stack().Clone()
	st2.Layers[1].Rules[0].Min = stack.F(85)
	if err := h.s.Apply("rock: min slope", st2); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	h.s.pipe.passMu.Lock()
	same := h.s.pipe.derivedFor == key
	h.s.pipe.passMu.Unlock()
	if !same || key.mode != viewport.OverlayAspect {
		t.Errorf("a rule edit recomputed the aspect grid (or none was bound): %+v", key.mode)
	}
}
