package gpu

import (
	"context"
	"errors"
	"image"
	"math"
	"strings"
	"testing"

	"strata/field"
	"strata/sculpt"
	"strata/shaders"
)

// sculptSetup is a field on the device in small bricks (so that dabs cross bricks and write the
// copies in their neighbours' aprons) and the kernel.
type sculptSetup struct {
	f  *field.Field
	fb *FieldBuffers
	k  *SculptKernel
	pl sculpt.Place
}

func newSculptSetup(t *testing.T, n int, budget int64) *sculptSetup {
	t.Helper()
	d := testDevice(t)
	f := testField(t, n, 2)
	geo, err := f.Geometry(0)
	if err != nil {
		t.Fatal(err)
	}
	fb := d.NewFieldBuffers(budget)
	t.Cleanup(fb.Release)
	fb.BrickSize = 48
	fb.Cut(&geo, 2)
	if _, err := fb.Upload(f, []string{"mask.snow"}, image.Rectangle{}); err != nil {
		t.Fatal(err)
	}
	k, err := d.NewSculptKernel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Release)
	if budget == 0 {
		if err := fb.Fill(context.Background(), image.Point{}); err != nil {
			t.Fatal(err)
		}
	}
	return &sculptSetup{f: f, fb: fb, k: k, pl: sculpt.PlaceOf(f)}
}

// device is the whole height as the bricks on the device hold it (every copy agreeing).
func (s *sculptSetup) device(t *testing.T) *field.Grid {
	t.Helper()
	g, err := s.fb.ReadHeight(image.Rect(0, 0, s.f.Height.W, s.f.Height.H))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func ulp32(v float64) float64 {
	f := float32(math.Abs(v))
	return float64(math.Nextafter32(f, float32(math.Inf(1))) - f)
}

// sculptTol is the twins' stated tolerance for one dab on the same heights (docs/design.md "GPU
// sculpt twin"): a few f32 roundings of the heights, plus a fraction (rel) of the most the dab
// moves a texel (reach), plus for a terrace of sharpness k < 1 the f32 fraction's rounding
// amplified by 1/(1 − k).
func sculptTol(d *sculpt.Dab, v, reach float64) float64 {
	rel := 1e-5
	if d.Mode == sculpt.Noise {
		rel = 5e-5 // FBM's f32 twins differ by 1e-5 (noise.wgsl)
	}
	tol := 4*ulp32(v) + rel*reach
	if d.Mode == sculpt.Terrace && d.Sharpness < 1 {
		tol += 4 * ulp32(v) / (1 - d.Sharpness)
	}
	return tol
}

// reach is the most d moves a texel of g (its box's relief for a smooth).
func reach(d *sculpt.Dab, g *field.Grid, pl sculpt.Place) float64 {
	p := d.Resolved(pl)
	rect := d.Rect(g.W, g.H, pl)
	var r float64
	switch p.Mode {
	case sculpt.Raise:
		r = math.Abs(p.Lift)
	case sculpt.Terrace:
		r = p.Step
	case sculpt.Noise:
		r = math.Abs(p.Amplitude)
	case sculpt.Stamp:
		m := 0.0
		for _, v := range p.Image.Data {
			m = math.Max(m, math.Abs(float64(v)))
		}
		r = math.Abs(p.StampHeight) * m
	case sculpt.Flatten, sculpt.Set, sculpt.Smooth:
		box := rect.Inset(-p.HalfWidth).Intersect(image.Rect(0, 0, g.W, g.H))
		lo, hi := math.Inf(1), math.Inf(-1)
		for j := box.Min.Y; j < box.Max.Y; j++ {
			for i := box.Min.X; i < box.Max.X; i++ {
				v := float64(g.At(i, j))
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if p.Mode != sculpt.Smooth {
			lo, hi = math.Min(lo, p.Height), math.Max(hi, p.Height)
		}
		r = hi - lo
	}
	return r * p.Strength
}

// ambiguous reports a texel where the Go's float64 decision and the kernel's f32 one may fall on
// either side: on a hard disc's edge, on a stamp image's edge, on a hard terrace's step.
func ambiguous(d *sculpt.Dab, pl sculpt.Place, i, j int, v float64) bool {
	x := pl.Min[0] + (float64(i)+0.5)*pl.Texel[0]
	z := pl.Min[1] + (float64(j)+0.5)*pl.Texel[1]
	dist := math.Hypot(x-d.X, z-d.Z)
	if d.Falloff <= 0 && math.Abs(dist-d.Radius) <= 1e-5*d.Radius {
		return true
	}
	switch d.Mode {
	case sculpt.Stamp:
		fr := d.StampFrame()
		u := ((x-d.X)*fr.Cos + (z-d.Z)*fr.Sin) / fr.PS
		w := (-(x-d.X)*fr.Sin + (z-d.Z)*fr.Cos) / fr.PS
		return math.Abs(math.Abs(u)-fr.HalfW) < 1e-3 || math.Abs(math.Abs(w)-fr.HalfH) < 1e-3
	case sculpt.Terrace:
		q := v / d.Step
		return d.Sharpness >= 1 && math.Abs(q-math.Round(q)) < 1e-5
	}
	return false
}

// sculptStamp is a 21×13 asymmetric image (a ramp with a bump) whose border is 0, so that its
// rotation and placement show.
func sculptStamp() *field.Grid {
	g := field.NewGrid(21, 13)
	for j := 1; j < g.H-1; j++ {
		for i := 1; i < g.W-1; i++ {
			ramp := float64(i) / float64(g.W)
			bump := math.Exp(-(math.Pow(float64(i)-14, 2) + math.Pow(float64(j)-4, 2)) / 6)
			g.Set(i, j, float32(0.6*ramp+bump))
		}
	}
	return g
}

// sculptCases are sequences of dabs of every mode, across bricks and the field's edge.
func sculptCases(f *field.Field) []struct {
	name string
	dabs []sculpt.Dab
} {
	mn, ts := f.Placement.Min(), f.TexelSize()[0]
	at := func(i, j float64) (float64, float64) { return mn[0] + i*ts, mn[1] + j*ts }
	path := func(p sculpt.Params, radius, falloff float64, pts ...[2]float64) []sculpt.Dab {
		var out []sculpt.Dab
		for _, q := range pts {
			x, z := at(q[0], q[1])
			out = append(out, sculpt.Dab{Params: p, X: x, Z: z, Radius: radius * ts, Falloff: falloff})
		}
		return out
	}
	line := [][2]float64{{40, 40}, {43.3, 41}, {46.7, 42.5}, {50, 44}, {53.1, 46}, {56, 47.5}}
	edge := [][2]float64{{3, 90}, {1.5, 94}, {-2, 98}}
	img := sculptStamp()
	return []struct {
		name string
		dabs []sculpt.Dab
	}{
		{"raise", append(path(sculpt.Params{Mode: sculpt.Raise, Strength: 0.8}, 13, 0.5, line...),
			path(sculpt.Params{Mode: sculpt.Raise, Strength: 1, Lift: 3}, 9, 0.3, edge...)...)},
		{"lower", path(sculpt.Params{Mode: sculpt.Raise, Strength: 0.6, Invert: true}, 11, 0.7, line...)},
		{"raise hard disc", path(sculpt.Params{Mode: sculpt.Raise, Strength: 1}, 10, 0, [2]float64{47.5, 47.5}, [2]float64{50.25, 47.1})},
		{"smooth", append(path(sculpt.Params{Mode: sculpt.Smooth, Strength: 1}, 24, 0.5, line...),
			path(sculpt.Params{Mode: sculpt.Smooth, Strength: 0.7, HalfWidth: 4}, 10, 0.2, edge...)...)},
		{"flatten", path(sculpt.Params{Mode: sculpt.Flatten, Strength: 0.5, Height: 3.25}, 12, 0.4, line...)},
		{"set", path(sculpt.Params{Mode: sculpt.Set, Strength: 1, Height: -7}, 9, 0.25, edge...)},
		{"terrace", path(sculpt.Params{Mode: sculpt.Terrace, Strength: 0.9, Step: 2.5, Sharpness: 0.75}, 14, 0.3, line...)},
		{"terrace hard", path(sculpt.Params{Mode: sculpt.Terrace, Strength: 1, Step: 2, Sharpness: 1}, 12, 0, line[:3]...)},
		{"noise", append(path(sculpt.Params{Mode: sculpt.Noise, Strength: 1, Amplitude: 4, FeatureSize: 9 * ts, Seed: 11}, 15, 0.5, line...),
			path(sculpt.Params{Mode: sculpt.Noise, Strength: 0.5, Amplitude: -2, FeatureSize: 31, Seed: 4}, 9, 0.1, edge...)...)},
		{"stamp", path(sculpt.Params{Mode: sculpt.Stamp, Strength: 1, Image: img, StampHeight: 5, Angle: 0}, 16, 0.2, [2]float64{60, 60})},
		{"stamp turned", path(sculpt.Params{Mode: sculpt.Stamp, Strength: 0.8, Image: img, StampHeight: 6, Angle: 37.5}, 20, 0.1, [2]float64{47, 46}, [2]float64{120, 40})},
		{"stamp into", path(sculpt.Params{Mode: sculpt.Stamp, Strength: 1, Image: img, StampHeight: 3, Angle: -120, Invert: true}, 11, 0, [2]float64{100, 100})},
	}
}

// Every mode's dabs, applied by the kernel to the bricks on the device, give package sculpt's
// heights: each dab on the heights the device held before it within the stated tolerance (a
// texel where the twins' decisions are ambiguous, within the dab's reach), the whole sequence
// within the sum of its dabs' tolerances of the Go's own sequence; no texel outside the dab's
// radius changes, and every copy of a texel in the bricks agrees.
func TestSculptKernelMatchesGo(t *testing.T) {
	s := newSculptSetup(t, 150, 0)
	orig := s.f.Height.Clone()
	for _, c := range sculptCases(s.f) {
		t.Run(c.name, func(t *testing.T) {
			// From the field's heights (the host's grid is never written).
			if _, err := s.fb.Upload(s.f, []string{"mask.snow"}, image.Rect(0, 0, s.f.Height.W, s.f.Height.H)); err != nil {
				t.Fatal(err)
			}
			goSeq := orig.Clone()
			prev := s.device(t)
			if !equalGrids(prev, orig) {
				t.Fatal("the device does not start from the field's heights")
			}
			seqTol := 0.0
			var worst, worstRel float64
			exact, touched, moved := 0, 0, 0
			for n, d := range c.dabs {
				r := reach(&d, prev, s.pl)
				if _, err := d.Apply(goSeq, s.pl); err != nil {
					t.Fatal(err)
				}
				want := prev.Clone()
				if _, err := d.Apply(want, s.pl); err != nil {
					t.Fatal(err)
				}
				if _, err := s.k.Apply(s.fb, &d); err != nil {
					t.Fatal(err)
				}
				got := s.device(t)
				maxTol := 0.0
				for k := range got.Data {
					i, j := k%got.W, k/got.W
					g, w, p := float64(got.Data[k]), float64(want.Data[k]), float64(prev.Data[k])
					if got.Data[k] != prev.Data[k] {
						x := s.pl.Min[0] + (float64(i)+0.5)*s.pl.Texel[0]
						z := s.pl.Min[1] + (float64(j)+0.5)*s.pl.Texel[1]
						if math.Hypot(x-d.X, z-d.Z) >= d.Radius {
							t.Fatalf("dab %d: texel (%d, %d) outside the radius changed: %v → %v", n, i, j, p, g)
						}
						moved++
					}
					tol := sculptTol(&d, math.Max(math.Abs(p), math.Abs(w)), r)
					maxTol = math.Max(maxTol, tol)
					e := math.Abs(g - w)
					if e > tol && !(ambiguous(&d, s.pl, i, j, p) && e <= r+tol) {
						t.Fatalf("dab %d: texel (%d, %d): the kernel gives %v, package sculpt %v (from %v): off by %g, tolerance %g", n, i, j, g, w, p, e, tol)
					}
					if got.Data[k] != prev.Data[k] || want.Data[k] != prev.Data[k] {
						touched++
						if got.Data[k] == want.Data[k] {
							exact++
						}
					}
					worst = math.Max(worst, e)
					if r > 0 {
						worstRel = math.Max(worstRel, e/r)
					}
				}
				seqTol += maxTol
				prev = got
			}
			if moved == 0 {
				t.Fatal("the dabs moved nothing")
			}
			ambig := false
			for _, d := range c.dabs {
				ambig = ambig || d.Falloff <= 0 || (d.Mode == sculpt.Terrace && d.Sharpness >= 1)
			}
			if !ambig {
				for k := range prev.Data {
					if e := math.Abs(float64(prev.Data[k] - goSeq.Data[k])); e > seqTol {
						t.Fatalf("after %d dabs texel (%d, %d) is %v on the device, %v by package sculpt: off by %g, tolerance %g",
							len(c.dabs), k%prev.W, k/prev.W, prev.Data[k], goSeq.Data[k], e, seqTol)
					}
				}
			}
			t.Logf("%d dabs: %d texel changes, %.2f%% of them bit-equal to package sculpt's, worst %.3g m (%.3g of the reach)", len(c.dabs), moved, 100*float64(exact)/float64(touched), worst, worstRel)
		})
	}
}

func equalGrids(a, b *field.Grid) bool {
	if a.W != b.W || a.H != b.H {
		return false
	}
	for k := range a.Data {
		if math.Float32bits(a.Data[k]) != math.Float32bits(b.Data[k]) {
			return false
		}
	}
	return true
}

// A stamp lands where package sculpt puts it, turned and scaled: the device's change under a
// rotated, scaled stamp correlates with the Go's and not with the unrotated one.
func TestSculptKernelStampTurnedScaled(t *testing.T) {
	s := newSculptSetup(t, 96, 0)
	img := sculptStamp()
	mn, ts := s.f.Placement.Min(), s.f.TexelSize()[0]
	mk := func(angle, radius float64) sculpt.Dab {
		return sculpt.Dab{Params: sculpt.Params{Mode: sculpt.Stamp, Strength: 1, Image: img, StampHeight: 4, Angle: angle},
			X: mn[0] + 48.3*ts, Z: mn[1] + 47.6*ts, Radius: radius * ts}
	}
	diff := func(d sculpt.Dab) []float64 {
		g := s.f.Height.Clone()
		if _, err := d.Apply(g, s.pl); err != nil {
			t.Fatal(err)
		}
		out := make([]float64, len(g.Data))
		for k := range g.Data {
			out[k] = float64(g.Data[k] - s.f.Height.Data[k])
		}
		return out
	}
	before := s.device(t)
	d := mk(90, 30)
	if _, err := s.k.Apply(s.fb, &d); err != nil {
		t.Fatal(err)
	}
	after := s.device(t)
	got := make([]float64, len(after.Data))
	for k := range got {
		got[k] = float64(after.Data[k] - before.Data[k])
	}
	corr := func(a, b []float64) float64 {
		var ab, aa, bb float64
		for k := range a {
			ab, aa, bb = ab+a[k]*b[k], aa+a[k]*a[k], bb+b[k]*b[k]
		}
		return ab / math.Sqrt(aa*bb)
	}
	if c := corr(got, diff(mk(90, 30))); c < 0.999999 {
		t.Errorf("the device's stamp correlates %v with package sculpt's", c)
	}
	for _, other := range []sculpt.Dab{mk(0, 30), mk(90, 15)} {
		if c := corr(got, diff(other)); c > 0.9 {
			t.Errorf("the device's stamp (90°, radius 30) correlates %v with one at %v°, radius %v texels: rotation or scale not applied", c, other.Angle, other.Radius/ts)
		}
	}
}

// A budget that holds fewer bricks than a dab reads refuses the dab and changes nothing; a bad
// dab is an error; nil and released kernels answer with errors.
func TestSculptKernelRefuses(t *testing.T) {
	s := newSculptSetup(t, 96, 1) // one brick at a time
	before := s.f.Height.Clone()
	mn, ts := s.f.Placement.Min(), s.f.TexelSize()[0]
	d := sculpt.Dab{Params: sculpt.Params{Mode: sculpt.Raise, Strength: 1}, X: mn[0] + 48*ts, Z: mn[1] + 48*ts, Radius: 6 * ts}
	if _, err := s.k.Apply(s.fb, &d); !errors.Is(err, ErrSculptNotResident) {
		t.Fatalf("a dab across four bricks under a one-brick budget: %v, want ErrSculptNotResident", err)
	}
	inOne := d
	inOne.X, inOne.Z = mn[0]+20*ts, mn[1]+20*ts
	if _, err := s.k.Apply(s.fb, &inOne); err != nil {
		t.Fatalf("a dab inside one brick under a one-brick budget: %v", err)
	}
	g, err := s.fb.ReadHeight(image.Rect(10, 10, 30, 30))
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for j := 0; j < g.H; j++ {
		for i := 0; i < g.W; i++ {
			if g.At(i, j) != before.At(10+i, 10+j) {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Fatal("the dab inside one brick changed nothing")
	}
	if !equalGrids(s.f.Height, before) {
		t.Error("the kernel wrote the host's grid")
	}
	bad := d
	bad.Radius = math.NaN()
	if _, err := s.k.Apply(s.fb, &bad); err == nil || !strings.Contains(err.Error(), "radius") {
		t.Errorf("a NaN radius: %v", err)
	}
	var nilK *SculptKernel
	if _, err := nilK.Apply(s.fb, &d); err == nil {
		t.Error("a nil kernel applied a dab")
	}
	nilK.Release()
	k2, err := testDevice(t).NewSculptKernel()
	if err != nil {
		t.Fatal(err)
	}
	k2.Release()
	k2.Release()
	if _, err := k2.Apply(s.fb, &d); err == nil {
		t.Error("a released kernel applied a dab")
	}
}

// The params' words are sculpt.wgsl's struct Dab member for member.
func TestSculptParamsLayout(t *testing.T) {
	src, err := shaders.Raw("sculpt")
	if err != nil {
		t.Fatal(err)
	}
	structs, err := parseWGSLStructs(src)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := structs["Dab"]
	if !ok {
		t.Fatal("no struct Dab in sculpt.wgsl")
	}
	want := map[string]int{"mode": scMode, "invert": scInvert, "halfWidth": scHalfWidth, "seed": scSeed,
		"strength": scStrength, "lift": scLift, "height": scHeight, "step": scStep, "sharpness": scSharpness,
		"amplitude": scAmplitude, "noiseInv": scNoiseInv, "radius": scRadius, "falloff": scFalloff,
		"stampHeight": scStampHeight, "ps": scPS, "cosA": scCosA, "sinA": scSinA, "halfW": scHalfW, "halfH": scHalfH,
		"stampMinX": scStampMinX, "stampMinZ": scStampMinZ, "stampInvX": scStampInvX, "stampInvZ": scStampInvZ,
		"pad0": scPad0, "stampW": scStampW, "stampH": scStampH, "gridW": scGridW, "gridH": scGridH,
		"rect": scRect, "src": scSrc, "part": scPart, "buf": scBuf}
	if len(s.members) != len(want) {
		t.Errorf("struct Dab has %d members, the Go packs %d", len(s.members), len(want))
	}
	for _, m := range s.members {
		w, ok := want[m.name]
		if !ok || m.offset != 4*w {
			t.Errorf("Dab.%s at byte %d, the Go packs it at word %d (%v)", m.name, m.offset, w, ok)
		}
	}
	if s.size != 4*sculptWords {
		t.Errorf("struct Dab is %d bytes, the Go packs %d", s.size, 4*sculptWords)
	}
}

// RewriteHeight puts the host's rows back in every copy of the height over a rectangle and
// uploads nothing else.
func TestRewriteHeight(t *testing.T) {
	s := newSculptSetup(t, 96, 0)
	mn, ts := s.f.Placement.Min(), s.f.TexelSize()[0]
	d := sculpt.Dab{Params: sculpt.Params{Mode: sculpt.Raise, Strength: 1, Lift: 2}, X: mn[0] + 47*ts, Z: mn[1] + 49*ts, Radius: 9 * ts}
	rect, err := s.k.Apply(s.fb, &d)
	if err != nil {
		t.Fatal(err)
	}
	if equalGrids(s.device(t), s.f.Height) {
		t.Fatal("the dab changed nothing on the device")
	}
	before := s.fb.Uploaded
	if err := s.fb.RewriteHeight(rect); err != nil {
		t.Fatal(err)
	}
	if !equalGrids(s.device(t), s.f.Height) {
		t.Error("after RewriteHeight the device's height is not the host's")
	}
	copies := int64(0)
	for i := range s.fb.bricks {
		copies += int64(s.fb.brickRect(i).Intersect(rect).Dx() * s.fb.brickRect(i).Intersect(rect).Dy())
	}
	if got := s.fb.Uploaded - before; got != 4*copies {
		t.Errorf("RewriteHeight uploaded %d bytes, want %d (the height's copies of the rectangle only)", got, 4*copies)
	}
	var nilFB *FieldBuffers
	if err := nilFB.RewriteHeight(rect); err == nil {
		t.Error("RewriteHeight on nil buffers")
	}
	if _, err := nilFB.ReadHeight(rect); err == nil {
		t.Error("ReadHeight on nil buffers")
	}
}
