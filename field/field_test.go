package field

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestPlacement(t *testing.T) {
	p := Placement{Size: [2]float64{4000, 2000}, Origin: [2]float64{100, -50}}
	if got := p.Min(); got != [2]float64{-1900, -1050} {
		t.Errorf("Min = %v", got)
	}
	if got := p.Max(); got != [2]float64{2100, 950} {
		t.Errorf("Max = %v", got)
	}
	for _, tc := range []struct {
		desc string
		p    Placement
		want string
	}{
		{"zero size", Placement{}, "size X = 0"},
		{"negative Z", Placement{Size: [2]float64{1, -1}}, "size Z = -1"},
		{"NaN size", Placement{Size: [2]float64{math.NaN(), 1}}, "size X = NaN"},
		{"infinite origin", Placement{Size: [2]float64{1, 1}, Origin: [2]float64{0, math.Inf(1)}}, "origin Z"},
	} {
		if err := tc.p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.desc, err, tc.want)
		}
	}
}

func TestFieldValidate(t *testing.T) {
	p := Placement{Size: [2]float64{10, 10}}
	f, err := New(p, NewGrid(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	if ts := f.TexelSize(); ts != [2]float64{2.5, 2.5} {
		t.Errorf("TexelSize = %v", ts)
	}
	bad := NewGrid(4, 4)
	bad.Set(1, 2, float32(math.NaN()))
	mask := NewGrid(4, 4)
	mask.Set(3, 0, 1.5)
	tests := []struct {
		desc string
		name string
		g    *Grid
		want string
	}{
		{"wrong size", "water", NewGrid(5, 4), "is 5×4 but the height is 4×4"},
		{"NaN", "water", bad, "texel (1, 2) is NaN"},
		{"mask out of range", "mask.snow", mask, "texel (3, 0) is 1.5: a mask holds 0..1"},
		{"empty name", "", NewGrid(4, 4), "empty"},
		{"reserved name", "height", NewGrid(4, 4), "reserved"},
		{"bare mask prefix", "mask.", NewGrid(4, 4), "names no mask"},
		{"bad character", "my water", NewGrid(4, 4), "not allowed"},
		{"nil grid", "water", nil, "missing"},
		{"short data", "water", &Grid{W: 4, H: 4, Data: make([]float32, 3)}, "holds 3 samples"},
	}
	for _, tc := range tests {
		if err := f.AddChannel(tc.name, tc.g); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "field: ") {
			t.Errorf("%s: err = %v, want %q", tc.desc, err, tc.want)
		}
	}
	for _, name := range []string{"mask.snow", "water", "sediment_m3", "flow.x"} {
		if err := f.AddChannel(name, NewGrid(4, 4)); err != nil {
			t.Errorf("AddChannel(%q): %v", name, err)
		}
	}
	if err := f.Validate(); err != nil {
		t.Errorf("valid field: %v", err)
	}
	// Validate reports every problem at once.
	f.Channels["a"] = NewGrid(2, 2)
	f.Channels["mask.b"] = mask
	f.Height.Set(0, 0, float32(math.Inf(1)))
	err = f.Validate()
	for _, want := range []string{`channel "a" is 2×2`, `"mask.b" holds 0..1.5`, "height: field: texel (0, 0) is +Inf"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to contain %q", err, want)
		}
	}
	if _, err := New(p, nil); err == nil {
		t.Error("New with no height: no error")
	}
	if NewGrid(0, 5) != nil || NewGrid(MaxSide+1, 1) != nil {
		t.Error("NewGrid accepted an out-of-range size")
	}
}

func TestGeometry(t *testing.T) {
	p := Placement{Size: [2]float64{4000, 3000}, Origin: [2]float64{500, 0}}
	tests := []struct {
		desc         string
		res          float64
		wantW, wantH int
		wantErr      string
	}{
		{"default is the height grid", 0, 2000, 1500, ""},
		{"4 m", 4, 1000, 750, ""},
		{"rounds", 3, 1333, 1000, ""},
		{"coarser than the field", 1e6, 1, 1, ""},
		{"negative", -1, 0, 0, "resolution -1"},
		{"NaN", math.NaN(), 0, 0, "resolution NaN"},
		{"too fine", 1e-4, 0, 0, "more than"},
	}
	for _, tc := range tests {
		w, h, err := WeightsGrid(p, 2000, 1500, tc.res)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.desc, err, tc.wantErr)
			}
			continue
		}
		if err != nil || w != tc.wantW || h != tc.wantH {
			t.Errorf("%s: WeightsGrid = %d, %d, %v; want %d, %d", tc.desc, w, h, err, tc.wantW, tc.wantH)
		}
	}
	geo := mustGeo(t, p, 2000, 1500, 1000, 750)
	if geo.FieldMin != [2]float32{-1500, -1500} || geo.InvHTexel != [2]float32{0.5, 0.5} ||
		geo.WTexel != [2]float32{4, 4} || geo.HTexel != [2]float32{2, 2} || geo.DefaultGradientStep() != 2 {
		t.Errorf("geometry %+v", geo)
	}
	if x, z := geo.WeightPos(0, 749); x != -1498 || z != 1498 {
		t.Errorf("WeightPos(0, 749) = %v, %v; want -1498, 1498", x, z)
	}
	// inverse texel sizes are the float32 nearest W/size, not 1/f32(size/W)
	g3 := mustGeo(t, Placement{Size: [2]float64{1000, 1000}}, 3, 7, 3, 7)
	if g3.InvHTexel[0] != float32(3.0/1000) || g3.InvHTexel[1] != float32(7.0/1000) {
		t.Errorf("InvHTexel = %v", g3.InvHTexel)
	}
	f := SampleDunesSized(64)
	fg, err := f.Geometry(0)
	if err != nil || fg.HeightW != 64 || fg.WeightsW != 64 {
		t.Errorf("Field.Geometry = %+v, %v", fg, err)
	}
	if _, err := NewGeometry(Placement{}, 4, 4, 4, 4); err == nil {
		t.Error("NewGeometry accepted an empty placement")
	}
}

func TestSampleDunes(t *testing.T) {
	start := time.Now()
	f := SampleDunes()
	took := time.Since(start)
	if f.Height.W != 2000 || f.Height.H != 2000 || f.Size != [2]float64{4000, 4000} || f.Origin != [2]float64{} {
		t.Fatalf("dunes: %d×%d over %v at %v", f.Height.W, f.Height.H, f.Size, f.Origin)
	}
	if ts := f.TexelSize(); ts != [2]float64{2, 2} {
		t.Errorf("texel %v, want 2 m", ts)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	lo, hi := f.Height.MinMax()
	if lo < 0 || hi > DunesAmplitude || hi-lo < DunesAmplitude/3 {
		t.Errorf("heights %v..%v, want within 0..18 m and a real relief", lo, hi)
	}
	// deterministic, and the small variant is the same ground
	small := SampleDunesSized(100) // 40 m texels; texel (i, j) centre = dunes texel (20i+9.5, …)
	again := SampleDunesSized(100)
	for k := range small.Height.Data {
		if small.Height.Data[k] != again.Height.Data[k] {
			t.Fatalf("SampleDunesSized is not deterministic at %d", k)
		}
	}
	geo, _ := f.Geometry(0)
	s := geo.Sampler(f.Height)
	x, z := float32(-2000+40*37+20), float32(-2000+40*51+20)
	if d := math.Abs(float64(s.Bilinear(x, z) - small.Height.At(37, 51))); d > 0.05 {
		t.Errorf("SampleDunesSized(100) differs from SampleDunes by %v m at the same place", d)
	}
	// a slope histogram: mostly sand (< 18°) with some steeper ground
	g := geo.DefaultGradientStep()
	var steep, n int
	for j := 0; j < 2000; j += 7 {
		for i := 0; i < 2000; i += 7 {
			px, pz := geo.WeightPos(i, j)
			if s.Slope(px, pz, g) > 18 {
				steep++
			}
			n++
		}
	}
	if frac := float64(steep) / float64(n); frac < 0.03 || frac > 0.3 {
		t.Errorf("%.1f%% of texels steeper than 18°: the sample stack would show too little or too much rock", 100*frac)
	}
	t.Logf("dunes built in %v; %.1f%% of texels steeper than 18°; heights %.2f..%.2f m", took, 100*float64(steep)/float64(n), lo, hi)
}

// BenchmarkSampleDunes builds the editor's sample ground (2000² texels of fbm, on every core):
// part of the editor's start (docs/PERFORMANCE.md, "Editor start").
func BenchmarkSampleDunes(b *testing.B) {
	for b.Loop() {
		SampleDunes()
	}
}
