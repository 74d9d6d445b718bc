package field

import (
	"math"
	"math/rand/v2"
	"testing"
)

// planeField is a w×h grid over p whose samples are h(x, z) at the texel centres.
func gridOf(p Placement, w, h int, fn func(x, z float64) float64) *Grid {
	g := NewGrid(w, h)
	mn := p.Min()
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			x := mn[0] + (float64(i)+0.5)*p.Size[0]/float64(w)
			z := mn[1] + (float64(j)+0.5)*p.Size[1]/float64(h)
			g.Set(i, j, float32(fn(x, z)))
		}
	}
	return g
}

func mustGeo(t testing.TB, p Placement, hw, hh, ww, wh int) Geometry {
	t.Helper()
	geo, err := NewGeometry(p, hw, hh, ww, wh)
	if err != nil {
		t.Fatal(err)
	}
	return geo
}

func TestBilinear(t *testing.T) {
	p := Placement{Size: [2]float64{100, 60}, Origin: [2]float64{30, -10}}
	plane := func(x, z float64) float64 { return 3 + 0.25*x - 0.5*z }
	g := gridOf(p, 50, 20, plane)
	geo := mustGeo(t, p, 50, 20, 50, 20)
	s := geo.Sampler(g)
	mn, mx := p.Min(), p.Max()
	hx, hz := p.Size[0]/50, p.Size[1]/20
	tests := []struct {
		desc string
		x, z float64
		want float64
		tol  float64
	}{
		{"first texel centre", mn[0] + hx/2, mn[1] + hz/2, plane(mn[0]+hx/2, mn[1]+hz/2), 1e-4},
		{"between centres", 31.3, -7.7, plane(31.3, -7.7), 1e-4},
		{"field centre", 30, -10, plane(30, -10), 1e-4},
		{"last texel centre", mx[0] - hx/2, mx[1] - hz/2, plane(mx[0]-hx/2, mx[1]-hz/2), 1e-4},
		{"clamped at min corner", mn[0], mn[1], plane(mn[0]+hx/2, mn[1]+hz/2), 1e-4},
		{"clamped far outside min", mn[0] - 1e4, mn[1] - 1e4, plane(mn[0]+hx/2, mn[1]+hz/2), 1e-4},
		{"clamped far outside max", mx[0] + 1e4, mx[1] + 1e4, plane(mx[0]-hx/2, mx[1]-hz/2), 1e-4},
		{"clamped in x only", mx[0] + 5, -7.7, plane(mx[0]-hx/2, -7.7), 1e-4},
	}
	for _, tc := range tests {
		got := s.Bilinear(float32(tc.x), float32(tc.z))
		if math.Abs(float64(got)-tc.want) > tc.tol {
			t.Errorf("%s: Bilinear(%v, %v) = %v, want %v", tc.desc, tc.x, tc.z, got, tc.want)
		}
	}
	// NaN and absurd positions must not panic.
	_ = s.Bilinear(float32(math.NaN()), 0)
	_ = s.Bilinear(float32(math.Inf(1)), float32(math.Inf(-1)))
	_ = s.Bilinear(3e38, -3e38)
	var zero Sampler
	if v := zero.Bilinear(1, 2); v != 0 {
		t.Errorf("zero Sampler = %v, want 0", v)
	}
}

func TestBilinearPlaneRandom(t *testing.T) {
	p := Placement{Size: [2]float64{512, 256}, Origin: [2]float64{0, 0}}
	plane := func(x, z float64) float64 { return 100 + 0.3*x + 0.7*z }
	g := gridOf(p, 128, 64, plane)
	geo := mustGeo(t, p, 128, 64, 128, 64)
	s := geo.Sampler(g)
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 10000; k++ {
		// inside the span of texel centres, where bilinear is exact on a plane
		x := -256 + 2 + r.Float64()*508
		z := -128 + 2 + r.Float64()*252
		got := s.Bilinear(float32(x), float32(z))
		if d := math.Abs(float64(got) - plane(x, z)); d > 2e-3 {
			t.Fatalf("Bilinear(%v, %v) = %v, want %v (|d| %v)", x, z, got, plane(x, z), d)
		}
	}
}

func TestSlope(t *testing.T) {
	p := Placement{Size: [2]float64{400, 400}}
	tests := []struct {
		desc  string
		deg   float64 // slope of the plane
		dir   float64 // direction of steepest ascent, degrees from +X
		g     float32
		wantD float64
	}{
		{"flat", 0, 0, 4, 0},
		{"30 deg along x", 30, 0, 4, 30},
		{"30 deg along z", 30, 90, 4, 30},
		{"30 deg diagonal", 30, 45, 4, 30},
		{"45 deg along -x, step 10 m", 45, 180, 10, 45},
		{"60 deg, step 2.5 m", 60, 210, 2.5, 60},
		{"10 deg, sub-texel step", 10, 30, 1, 10},
	}
	for _, tc := range tests {
		m := math.Tan(tc.deg * math.Pi / 180)
		c, sn := math.Cos(tc.dir*math.Pi/180), math.Sin(tc.dir*math.Pi/180)
		g := gridOf(p, 100, 100, func(x, z float64) float64 { return m * (c*x + sn*z) })
		geo := mustGeo(t, p, 100, 100, 100, 100)
		s := geo.Sampler(g)
		for _, pos := range [][2]float32{{0, 0}, {13.7, -55.1}, {150, 150}} {
			got := s.Slope(pos[0], pos[1], tc.g)
			if math.Abs(float64(got)-tc.wantD) > 0.01 {
				t.Errorf("%s: Slope at %v = %v°, want %v°", tc.desc, pos, got, tc.wantD)
			}
		}
	}
}

func TestCurvature(t *testing.T) {
	p := Placement{Size: [2]float64{200, 200}}
	tests := []struct {
		desc string
		a    float64 // h = a·(x² + z²), Laplacian 4a
		g    float32 // a multiple of the 2 m texel, so every tap lands on texel centres
	}{
		{"bowl is a gully (+)", 0.01, 2},
		{"dome is a ridge (-)", -0.02, 4},
		{"wide step", 0.005, 10},
	}
	for _, tc := range tests {
		g := gridOf(p, 100, 100, func(x, z float64) float64 { return tc.a * (x*x + z*z) })
		geo := mustGeo(t, p, 100, 100, 100, 100)
		s := geo.Sampler(g)
		// texel centres: odd metres
		for _, pos := range [][2]float32{{1, 1}, {-21, 33}, {41, -9}} {
			got := s.Curvature(pos[0], pos[1], tc.g)
			want := 4 * tc.a
			if math.Abs(float64(got)-want) > 1e-3*math.Abs(want)+1e-4 {
				t.Errorf("%s: Curvature at %v = %v, want %v", tc.desc, pos, got, want)
			}
			sl, cv := s.SlopeCurvature(pos[0], pos[1], tc.g)
			if sl != s.Slope(pos[0], pos[1], tc.g) || cv != got {
				t.Errorf("%s: SlopeCurvature = %v, %v; separate calls %v, %v", tc.desc, sl, cv, s.Slope(pos[0], pos[1], tc.g), got)
			}
		}
	}
}

func BenchmarkBilinear(b *testing.B) {
	f := SampleDunesSized(512)
	geo, _ := f.Geometry(0)
	s := geo.Sampler(f.Height)
	var sum float32
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		px, pz := geo.WeightPos(k&511, (k>>9)&511)
		sum += s.Bilinear(px, pz)
	}
	_ = sum
}

func BenchmarkSlopeCurvature(b *testing.B) {
	f := SampleDunesSized(512)
	geo, _ := f.Geometry(0)
	s := geo.Sampler(f.Height)
	g := geo.DefaultGradientStep()
	var sum float32
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		px, pz := geo.WeightPos(k&511, (k>>9)&511)
		sl, cv := s.SlopeCurvature(px, pz, g)
		sum += sl + cv
	}
	_ = sum
}

func BenchmarkSlope(b *testing.B) {
	f := SampleDunesSized(512)
	geo, _ := f.Geometry(0)
	s := geo.Sampler(f.Height)
	g := geo.DefaultGradientStep()
	var sum float32
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		px, pz := geo.WeightPos(k&511, (k>>9)&511)
		sum += s.Slope(px, pz, g)
	}
	_ = sum
}
