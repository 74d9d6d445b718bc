package sculpt

import (
	"context"
	"image"
	"math"
	"strings"
	"testing"

	"strata/field"
)

// bumpy is a w×h grid of rolling ground (tens of metres of relief) at 2 m texels from (-40, 10).
func bumpy(w, h int) (*field.Grid, Place) {
	g := field.NewGrid(w, h)
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			g.Set(i, j, float32(30+12*math.Sin(float64(i)*0.37)+9*math.Cos(float64(j)*0.23+float64(i)*0.11)))
		}
	}
	return g, Place{Min: [2]float64{-40, 10}, Texel: [2]float64{2, 2}}
}

// disc is a 21×21 stamp image: a cone, 1 at its centre, 0 at its rim, asymmetric (a ridge along
// +u) so that a rotation shows.
func disc() *field.Grid {
	n := 21
	g := field.NewGrid(n, n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			u, v := float64(i)-10, float64(j)-10
			c := math.Max(0, 1-math.Hypot(u, v)/10)
			if v == 0 && u > 0 {
				c += 0.5
			}
			g.Set(i, j, float32(c))
		}
	}
	return g
}

func allModes() []Params {
	return []Params{
		{Mode: Raise, Strength: 0.8},
		{Mode: Raise, Strength: 0.8, Invert: true},
		{Mode: Smooth, Strength: 1},
		{Mode: Flatten, Strength: 0.7, Height: 31},
		{Mode: Set, Strength: 1, Height: 5},
		{Mode: Terrace, Strength: 1, Step: 4, Sharpness: 0.6},
		{Mode: Noise, Strength: 1, Amplitude: 3, FeatureSize: 20, Seed: 7},
		{Mode: Stamp, Strength: 1, Image: disc(), Angle: 30, StampHeight: 6},
	}
}

// Every mode changes texels whose centre lies inside the radius, and no other.
func TestSculptModesInsideRadius(t *testing.T) {
	for _, p := range allModes() {
		t.Run(label(p), func(t *testing.T) {
			g, pl := bumpy(64, 48)
			before := g.Clone()
			d := Dab{Params: p, X: pl.Min[0] + 61.3, Z: pl.Min[1] + 40.9, Radius: 17, Falloff: 0.4}
			changed, err := d.Apply(g, pl)
			if err != nil {
				t.Fatal(err)
			}
			moved := 0
			for j := 0; j < g.H; j++ {
				for i := 0; i < g.W; i++ {
					x, z := pl.centre(i, j)
					inside := math.Hypot(x-d.X, z-d.Z) < d.Radius
					if g.At(i, j) != before.At(i, j) {
						if !inside {
							t.Fatalf("texel (%d, %d) outside the radius changed", i, j)
						}
						if !(i >= changed.Min.X && i < changed.Max.X && j >= changed.Min.Y && j < changed.Max.Y) {
							t.Fatalf("texel (%d, %d) changed outside the returned rectangle %v", i, j, changed)
						}
						moved++
					}
				}
			}
			if moved < 20 {
				t.Fatalf("the dab moved %d texels", moved)
			}
		})
	}
}

// A dab reads the heights as they were before it: a full-strength smooth leaves every texel inside
// at the mean of its box in the grid before the dab, whatever order the texels were written in.
func TestSculptSmoothReadsTheGroundBefore(t *testing.T) {
	g, pl := bumpy(40, 40)
	before := g.Clone()
	d := Dab{Params: Params{Mode: Smooth, Strength: 1, HalfWidth: 2}, X: pl.Min[0] + 40, Z: pl.Min[1] + 40, Radius: 12}
	if _, err := d.Apply(g, pl); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < g.H; j++ {
		for i := 0; i < g.W; i++ {
			x, z := pl.centre(i, j)
			if math.Hypot(x-d.X, z-d.Z) >= d.Radius {
				continue
			}
			var s float64
			for b := j - 2; b <= j+2; b++ {
				for a := i - 2; a <= i+2; a++ {
					s += float64(before.At(a, b))
				}
			}
			if want := float32(s / 25); math.Abs(float64(g.At(i, j)-want)) > 1e-4 {
				t.Fatalf("texel (%d, %d) is %v, the mean of the box before the dab is %v", i, j, g.At(i, j), want)
			}
		}
	}
}

// Set at full strength reaches the typed height; terrace at sharpness 1 gives the step heights.
func TestSculptSetAndTerrace(t *testing.T) {
	g, pl := bumpy(48, 48)
	set := Dab{Params: Params{Mode: Set, Strength: 1, Height: -12.5}, X: pl.Min[0] + 48, Z: pl.Min[1] + 48, Radius: 20}
	if _, err := set.Apply(g, pl); err != nil {
		t.Fatal(err)
	}
	g2, _ := bumpy(48, 48)
	before := g2.Clone()
	ter := Dab{Params: Params{Mode: Terrace, Strength: 1, Step: 5, Sharpness: 1}, X: set.X, Z: set.Z, Radius: 20}
	if _, err := ter.Apply(g2, pl); err != nil {
		t.Fatal(err)
	}
	levels := map[float32]bool{}
	n := 0
	for j := 0; j < g.H; j++ {
		for i := 0; i < g.W; i++ {
			x, z := pl.centre(i, j)
			if math.Hypot(x-set.X, z-set.Z) >= set.Radius {
				continue
			}
			n++
			if g.At(i, j) != -12.5 {
				t.Fatalf("set: texel (%d, %d) is %v, not the typed -12.5", i, j, g.At(i, j))
			}
			v := g2.At(i, j)
			if want := float32(5 * math.Floor(float64(before.At(i, j))/5)); v != want {
				t.Fatalf("terrace: texel (%d, %d) from %v is %v, want the step %v", i, j, before.At(i, j), v, want)
			}
			levels[v] = true
		}
	}
	if n < 100 || len(levels) < 3 {
		t.Fatalf("%d texels on %d levels: the test shows nothing", n, len(levels))
	}
	// Sharpness 0 changes nothing; between, continuous and flat at the lower part of each step.
	for _, v := range []float64{-7.3, 0, 2.4, 9.99, 13} {
		if Terraced(v, 5, 0) != v {
			t.Errorf("Terraced(%v, 5, 0) = %v", v, Terraced(v, 5, 0))
		}
	}
	if got := Terraced(11, 5, 0.5); got != 10 {
		t.Errorf("Terraced(11, 5, 0.5) = %v, want the flat 10", got)
	}
	if got := Terraced(13.75, 5, 0.5); got != 12.5 {
		t.Errorf("Terraced(13.75, 5, 0.5) = %v, want 12.5 (half way up the riser)", got)
	}
}

// Noise is deterministic per seed and anchored to the world: the same seed gives the same bytes,
// a grid placed elsewhere gets the same change at the same world texels, another seed differs.
func TestSculptNoiseDeterministic(t *testing.T) {
	p := Params{Mode: Noise, Strength: 0.6, Amplitude: 4, FeatureSize: 15, Seed: 42}
	run := func(p Params, pl Place) *field.Grid {
		g := field.NewGrid(40, 40)
		d := Dab{Params: p, X: 30, Z: 30, Radius: 14, Falloff: 0.3}
		if _, err := d.Apply(g, pl); err != nil {
			t.Fatal(err)
		}
		return g
	}
	pl := Place{Min: [2]float64{0, 0}, Texel: [2]float64{1.5, 1.5}}
	a, b := run(p, pl), run(p, pl)
	moved := 0
	for k := range a.Data {
		if a.Data[k] != b.Data[k] {
			t.Fatal("the same seed gave different heights")
		}
		if a.Data[k] != 0 {
			moved++
		}
	}
	if moved < 50 {
		t.Fatalf("noise moved %d texels", moved)
	}
	shifted := run(p, Place{Min: [2]float64{-6, 3}, Texel: pl.Texel}) // texel (i, j) here is (i+4, j-2) there
	for j := 2; j < 40; j++ {
		for i := 0; i < 36; i++ {
			if shifted.At(i+4, j-2) != a.At(i, j) {
				t.Fatalf("the world texel at grid (%d, %d): %v here, %v on the shifted grid", i, j, a.At(i, j), shifted.At(i+4, j-2))
			}
		}
	}
	p.Seed = 43
	c := run(p, pl)
	same := true
	for k := range a.Data {
		same = same && a.Data[k] == c.Data[k]
	}
	if same {
		t.Error("another seed gave the same heights")
	}
}

// A stamp turned 90° lays the same heights as the image turned 90° laid unturned.
func TestSculptStampRotated(t *testing.T) {
	img := disc()
	n := img.W
	rot := field.NewGrid(n, n)
	// Turning the stamp by +90° maps its u axis onto world +Z: the image laid at 90° reads
	// S(u = dz, v = -dx), which is the image rot(i, j) = S(j, n-1-i) laid at 0°.
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			rot.Set(i, j, img.At(j, n-1-i))
		}
	}
	run := func(im *field.Grid, angle float64) *field.Grid {
		g, pl := bumpy(50, 50)
		d := Dab{Params: Params{Mode: Stamp, Strength: 1, Image: im, Angle: angle, StampHeight: 8}, X: pl.Min[0] + 50.7, Z: pl.Min[1] + 49.2, Radius: 21, Falloff: 0.2}
		if _, err := d.Apply(g, pl); err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, b, flat := run(img, 90), run(rot, 0), run(img, 0)
	differ := 0
	for k := range a.Data {
		if math.Abs(float64(a.Data[k]-b.Data[k])) > 1e-4 {
			t.Fatalf("texel %d: the stamp turned 90° gives %v, the turned image %v", k, a.Data[k], b.Data[k])
		}
		if math.Abs(float64(a.Data[k]-flat.Data[k])) > 0.1 {
			differ++
		}
	}
	if differ < 5 {
		t.Fatalf("turning the stamp changed %d texels: the test shows nothing", differ)
	}
	// Invert cuts the stamp in by as much.
	g, pl := bumpy(50, 50)
	before := g.Clone()
	d := Dab{Params: Params{Mode: Stamp, Strength: 1, Image: img, StampHeight: 8}, X: pl.Min[0] + 50.7, Z: pl.Min[1] + 49.2, Radius: 21}
	up := g.Clone()
	d.Apply(up, pl)
	d.Invert = true
	d.Apply(g, pl)
	for k := range g.Data {
		if math.Abs(float64((up.Data[k]-before.Data[k])+(g.Data[k]-before.Data[k]))) > 1e-4 {
			t.Fatalf("texel %d: the stamp raised %v, its inverse lowered %v", k, up.Data[k]-before.Data[k], before.Data[k]-g.Data[k])
		}
	}
}

// ApplyWeighted is the dab's arithmetic with the weight grid as w: 0 leaves a texel, 1 applies
// the operation fully.
func TestSculptApplyWeighted(t *testing.T) {
	g, pl := bumpy(32, 32)
	before := g.Clone()
	w := field.NewGrid(32, 32)
	for j := 8; j < 20; j++ {
		for i := 4; i < 30; i++ {
			w.Set(i, j, 1)
		}
	}
	w.Set(2, 2, 0.5)
	r, err := ApplyWeighted(context.Background(), g, pl, &Dab{Params: Params{Mode: Set, Strength: 1, Height: 3}}, w)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 32; j++ {
		for i := 0; i < 32; i++ {
			switch wv := w.At(i, j); {
			case wv == 1 && g.At(i, j) != 3:
				t.Fatalf("texel (%d, %d) of weight 1 is %v, not 3", i, j, g.At(i, j))
			case wv == 0 && g.At(i, j) != before.At(i, j):
				t.Fatalf("texel (%d, %d) of weight 0 changed", i, j)
			}
		}
	}
	if want := float32(float64(before.At(2, 2)) + (3-float64(before.At(2, 2)))*0.5); g.At(2, 2) != want {
		t.Errorf("weight 0.5: %v, want half way %v", g.At(2, 2), want)
	}
	if r.Min.X != 2 || r.Min.Y != 2 || r.Max.X != 30 || r.Max.Y != 20 {
		t.Errorf("changed rectangle %v", r)
	}
}

// A bad parameter is an error naming it.
func TestSculptCheckNamesTheParam(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Mode: Terrace, Strength: 1, Step: 0}, "step"},
		{Params{Mode: Terrace, Strength: 1, Step: 2, Sharpness: 1.5}, "sharpness"},
		{Params{Mode: Noise, Strength: 1, Amplitude: 1}, "feature size"},
		{Params{Mode: Noise, Strength: 1, Amplitude: math.NaN(), FeatureSize: 3}, "amplitude"},
		{Params{Mode: Set, Strength: 1, Height: math.Inf(1)}, "height"},
		{Params{Mode: Stamp, Strength: 1}, "image"},
		{Params{Mode: Raise, Strength: 2}, "strength"},
		{Params{Mode: 99}, "mode"},
	} {
		err := c.p.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.p, err, c.want)
		}
	}
	d := Dab{Params: Params{Mode: Raise, Strength: 1}, Radius: -1}
	if _, err := d.Apply(field.NewGrid(4, 4), Place{Texel: [2]float64{1, 1}}); err == nil || !strings.Contains(err.Error(), "radius") {
		t.Errorf("a negative radius: %v", err)
	}
	for _, s := range Modes() {
		if m, _, err := ParseMode(s); err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if m, inv, err := ParseMode("lower"); err != nil || m != Raise || !inv {
		t.Errorf("ParseMode(lower) = %v %v %v", m, inv, err)
	}
}

// label names a case: its mode, "lower" for an inverted raise, "cut" for an inverted stamp.
func label(p Params) string {
	switch {
	case p.Invert && p.Mode == Raise:
		return "lower"
	case p.Invert:
		return "cut"
	}
	return p.Mode.String()
}

// A dab large enough to spread its rows over the cores gives the grid, bit for bit, and the
// changed rectangle that one row after another gives (the rows read only the grid before the dab).
func TestSculptApplyRowsOnCoresSameAsOneByOne(t *testing.T) {
	for _, p := range allModes() {
		t.Run(label(p), func(t *testing.T) {
			g, pl := bumpy(200, 160)
			one := g.Clone()
			d := Dab{Params: p, X: pl.Min[0] + 201.3, Z: pl.Min[1] + 160.9, Radius: 90, Falloff: 0.4}
			rect := d.Rect(g.W, g.H, pl)
			if rect.Dx()*rect.Dy() < parallelTexels {
				t.Fatalf("a dab of %v does not reach the cores", rect)
			}
			changed, err := d.Apply(g, pl)
			if err != nil {
				t.Fatal(err)
			}
			r := d.Resolved(pl)
			k := newKernel(&r, one, pl, rect, &d)
			var want image.Rectangle
			for j := rect.Min.Y; j < rect.Max.Y; j++ {
				want = want.Union(k.row(j, rect.Min.X, rect.Max.X, func(i int, x, z float64) float64 {
					return Weight(math.Hypot(x-d.X, z-d.Z), d.Radius, d.Falloff)
				}))
			}
			if changed != want || want.Empty() {
				t.Errorf("changed %v, one row after another %v", changed, want)
			}
			for k := range g.Data {
				if math.Float32bits(g.Data[k]) != math.Float32bits(one.Data[k]) {
					t.Fatalf("texel %d: %v on the cores, %v one row after another", k, g.Data[k], one.Data[k])
				}
			}
		})
	}
}
