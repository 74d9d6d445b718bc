package stack

import (
	"math"
	"strings"
	"testing"

	"strata/field"
)

// aspectRule packs one aspect rule (as layer 1's) and returns its lanes.
func aspectRule(t *testing.T, ru Rule) PackedRule {
	t.Helper()
	ru.Input = InputAspect
	p, err := Pack(slopeRule(ru), testGeom)
	if err != nil {
		t.Fatal(err)
	}
	pr, _ := UnpackRule(p, 0)
	return pr
}

// The wrapping band 315..45 passes exactly the north-facing quarter, both edges included, and
// nothing else; 45..315 (min < max) is its complement plus the shared edges; the whole compass
// (no edges, or 0..360) passes every aspect; and flat ground passes none (invert: all).
func TestAspectBandWraps(t *testing.T) {
	north := aspectRule(t, Rule{Min: F(315), Max: F(45)})
	rest := aspectRule(t, Rule{Min: F(45), Max: F(315)})
	northInv := aspectRule(t, Rule{Min: F(315), Max: F(45), Invert: true})
	all := aspectRule(t, Rule{})
	full := aspectRule(t, Rule{Min: F(0), Max: F(360), Softness: 30})
	for k := 0; k <= 7200; k++ {
		v := float32(k) * 0.05
		inNorth := v >= 315 || v <= 45
		if got, want := AspectBand(v, &north, 0), b2f(inNorth); got != want {
			t.Fatalf("315..45 at %v°: %v, want %v", v, got, want)
		}
		if got, want := AspectBand(v, &northInv, 0), 1-b2f(inNorth); got != want {
			t.Fatalf("315..45 inverted at %v°: %v, want %v", v, got, want)
		}
		if got, want := AspectBand(v, &rest, 0), b2f(v >= 45 && v <= 315); got != want {
			t.Fatalf("45..315 at %v°: %v, want %v", v, got, want)
		}
		if AspectBand(v, &all, 0) != 1 || AspectBand(v, &full, 0) != 1 {
			t.Fatalf("the whole compass at %v°: %v, %v, want 1", v, AspectBand(v, &all, 0), AspectBand(v, &full, 0))
		}
	}
	for _, pr := range []*PackedRule{&north, &rest, &all, &full} {
		for _, v := range []float32{field.AspectFlat, float32(math.NaN())} {
			if got := AspectBand(v, pr, 0.9); got != 0 {
				t.Errorf("flat ground (%v) under %+v: %v, want 0", v, *pr, got)
			}
		}
	}
	if got := AspectBand(field.AspectFlat, &northInv, 0.3); got != 1 {
		t.Errorf("flat ground under an inverted band: %v, want 1", got)
	}
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// Softness is measured along the circle: the wrapping band's feather across north is Band's
// feather on the band unrolled past 360 (315..405), and a band away from north is Band itself;
// jitter moves the value before banding, wrapping too.
func TestAspectBandSoftnessIsCircular(t *testing.T) {
	wrap := aspectRule(t, Rule{Min: F(315), Max: F(45), Softness: 10})
	unrolled := PackedRule{Flags: FlagHasMin | FlagHasMax, Min: 315, Max: 405, Softness: 10, InvTwoSoft: 1.0 / 20}
	plain := aspectRule(t, Rule{Min: F(100), Max: F(200), Softness: 12})
	linear := PackedRule{Flags: FlagHasMin | FlagHasMax, Min: 100, Max: 200, Softness: 12, InvTwoSoft: float32(1.0 / 24)}
	for k := 0; k < 3600; k++ {
		v := float32(k) * 0.1
		u := v
		if u < 135 { // the far side of north, unrolled
			u += 360
		}
		if got, want := AspectBand(v, &wrap, 0), Band(u, &unrolled, 0); math.Abs(float64(got-want)) > 2e-5 {
			t.Fatalf("315..45 soft 10 at %v°: %v, want %v", v, got, want)
		}
		if got, want := AspectBand(v, &plain, 0), Band(v, &linear, 0); math.Abs(float64(got-want)) > 2e-5 {
			t.Fatalf("100..200 soft 12 at %v°: %v, want %v", v, got, want)
		}
	}
	// The feather is symmetric about each edge and reaches across north: 350° and 10° are one
	// distance from the centre (0°) and fully in; 55° is 10° past the max edge and fully out.
	for _, tc := range []struct{ v, want float32 }{{350, 1}, {10, 1}, {45, 0.5}, {315, 0.5}, {55, 0}, {305, 0}, {35, 1}, {325, 1}} {
		if got := AspectBand(tc.v, &wrap, 0); math.Abs(float64(got-tc.want)) > 1e-6 {
			t.Errorf("315..45 soft 10 at %v°: %v, want %v", tc.v, got, tc.want)
		}
	}
	// Jitter of 20° at its extremes (n = 0 → −20°, n → 1 → +20°) moves 30° to 10° and 50°,
	// and 340° to 320° and 360°.
	jit := aspectRule(t, Rule{Min: F(0), Max: F(40), Jitter: 20})
	for _, tc := range []struct{ v, n, want float32 }{{30, 0, 1}, {30, 0.9999, 0}, {5, 0, 0}, {350, 0.9999, 1}, {340, 0.5, 0}} {
		if got := AspectBand(tc.v, &jit, tc.n); got != tc.want {
			t.Errorf("0..40 jitter 20 at %v°, n %v: %v, want %v", tc.v, tc.n, got, tc.want)
		}
	}
}

// coneGround is an n×n field of 1 m texels holding a cone whose top above radius flat metres is
// cut off flat: its aspect at a texel is the compass direction from the apex, except on the flat
// top (and at a non-finite sample, when wild).
func coneGround(n int, flat float64) (*field.Field, field.Geometry) {
	p := field.Placement{Size: [2]float64{float64(n), float64(n)}, Origin: [2]float64{-20, 33}}
	g := field.NewGrid(n, n)
	mn := p.Min()
	for j := range n {
		for i := range n {
			r := math.Hypot(mn[0]+float64(i)+0.5-p.Origin[0], mn[1]+float64(j)+0.5-p.Origin[1])
			g.Data[j*n+i] = float32(40 - 0.7*math.Max(r, flat))
		}
	}
	f, _ := field.New(p, g)
	fg, _ := f.Geometry(0)
	return f, fg
}

// On a cut cone, a layer on 315..45 covers exactly the north-facing quarter of the slopes — every
// texel facing more than a degree inside it fully, none facing more than a degree outside it at
// all — and nothing of the flat top; its inverted twin covers the rest and the top. Through the
// evaluator's fast rows (WeightsRow) and the definition (fillRowGeneral, Weights) alike.
func TestAspectNorthQuarterOnCone(t *testing.T) {
	const n = 96
	f, fg := coneGround(n, 6)
	s := New()
	north := NewLayer("north")
	north.Rules = []Rule{{Input: InputAspect, Min: F(315), Max: F(45)}}
	s.Layers = []Layer{NewLayer("ground"), north}
	inv := s.Clone()
	inv.Layers[1].Rules[0].Invert = true
	cx, cz := f.Placement.Origin[0], f.Placement.Origin[1]
	for _, tc := range []struct {
		name string
		s    *Stack
	}{{"north", s}, {"not north", inv}} {
		g := Geometry{FieldMin: fg.FieldMin, InvHTexel: fg.InvHTexel, WTexel: fg.WTexel, GradientStep: float32(s.GradientStepFor(f.TexelSize()))}
		c, err := Compile(tc.s, g)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, tl := range field.Tiles(&fg, 40, g.GradientStep) {
			tp := c.Taps(&fg, f.Height, [4]*field.Grid{}, tl)
			ins, gen, q := make([]TexelInputs, tl.W), make([]TexelInputs, tl.W), make([][8]uint8, tl.W)
			for j := tl.J0; j < tl.J0+tl.H; j++ {
				tp.WeightsRow(j, tl.I0, ins, q)
				tp.fillRowGeneral(j, tl.I0, gen)
				for k := range q {
					if w := c.Weights(&gen[k]); w != q[k] {
						t.Fatalf("%s: texel (%d, %d): fast %v, general %v", tc.name, tl.I0+k, j, q[k], w)
					}
					x, z := float64(gen[k].X), float64(gen[k].Z)
					r := math.Hypot(x-cx, z-cz)
					if r > 44 {
						continue // the field's edge clamps the taps
					}
					want := -1 // the flat top: no aspect, so no north
					if r > 7.5 {
						a := math.Atan2(x-cx, z-cz) * 180 / math.Pi
						if a < 0 {
							a += 360
						}
						switch d := math.Min(math.Abs(a), 360-math.Abs(a)); {
						case d < 44:
							want = 1
						case d > 46:
							want = 0
						default:
							continue // within a degree of an edge
						}
					} else if r > 4.5 {
						continue // the cone's rim: the taps straddle it
					}
					if gen[k].Aspect == field.AspectFlat {
						counts["flat"]++
					}
					isNorth := q[k][1] == 255
					if tc.s == inv {
						isNorth = q[k][1] == 0
					}
					if q[k][1] != 0 && q[k][1] != 255 {
						t.Fatalf("%s: texel (%d, %d) at aspect %v: weight %d, want 0 or 255", tc.name, tl.I0+k, j, gen[k].Aspect, q[k][1])
					}
					if isNorth != (want == 1) {
						t.Fatalf("%s: texel (%d, %d) at aspect %v° (r %.1f m): weights %v", tc.name, tl.I0+k, j, gen[k].Aspect, r, q[k])
					}
					counts[map[int]string{-1: "top", 0: "out", 1: "in"}[want]]++
				}
			}
		}
		if counts["top"] == 0 || counts["in"] < 500 || counts["out"] < 1500 || counts["flat"] != counts["top"] {
			t.Errorf("%s: texels checked %v: want the flat top, the quarter and the rest", tc.name, counts)
		}
	}
}

// A wholly flat field has no aspect anywhere: every aspect band gives 0 there (its layer shows
// nowhere), an inverted one 1, whatever the jitter.
func TestAspectFlatGround(t *testing.T) {
	p := field.Placement{Size: [2]float64{64, 64}}
	h := field.NewGrid(32, 32)
	for k := range h.Data {
		h.Data[k] = 123.5
	}
	f, _ := field.New(p, h)
	fg, _ := f.Geometry(0)
	s := AspectStack()
	s.Layers = s.Layers[:3] // sand, north (jittered), east
	inv := NewLayer("anywhere but east")
	inv.Rules = []Rule{{Input: InputAspect, Min: F(45), Max: F(135), Invert: true}}
	s.Layers = append(s.Layers, inv)
	g := Geometry{FieldMin: fg.FieldMin, InvHTexel: fg.InvHTexel, WTexel: fg.WTexel, GradientStep: float32(s.GradientStepFor(f.TexelSize()))}
	c, err := Compile(s, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range field.Tiles(&fg, 0, g.GradientStep) {
		tp := c.Taps(&fg, f.Height, [4]*field.Grid{}, tl)
		ins, q := make([]TexelInputs, tl.W), make([][8]uint8, tl.W)
		for j := tl.J0; j < tl.J0+tl.H; j++ {
			tp.FillRow(j, tl.I0, ins)
			tp.WeightsRow(j, tl.I0, make([]TexelInputs, tl.W), q)
			for k := range q {
				if ins[k].Aspect != field.AspectFlat {
					t.Fatalf("texel (%d, %d): aspect %v on flat ground", tl.I0+k, j, ins[k].Aspect)
				}
				if q[k] != [8]uint8{0, 0, 0, 255} {
					t.Fatalf("texel (%d, %d): weights %v, want all to the inverted layer", tl.I0+k, j, q[k])
				}
			}
		}
	}
}

// An aspect band is an arc of the compass: degrees in 0..360, both edges or neither, and min >
// max is allowed (it crosses north). Anything else is an error naming the file, the layer, the
// rule and the field.
func TestAspectValidation(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want string // "" = valid
	}{
		{"{input: aspect, min: 315, max: 45, softness: 10}", ""},
		{"{input: aspect, min: 0, max: 360}", ""},
		{"{input: aspect}", ""},
		{"{input: aspect, min: 90, max: 90, jitter: 400}", ""},
		{"{input: aspect, min: 315}", `layers[1] "snow" rules[0]: aspect band has min but no max`},
		{"{input: aspect, max: 45}", `layers[1] "snow" rules[0]: aspect band has max but no min`},
		{"{input: aspect, min: -45, max: 45}", `layers[1] "snow" rules[0]: aspect min -45 is outside 0..360`},
		{"{input: aspect, min: 10, max: 400}", `layers[1] "snow" rules[0]: aspect max 400 is outside 0..360`},
		{"{input: aspect, min: 10, max: 20, softness: -1}", `layers[1] "snow" rules[0]: negative softness`},
		{"{input: slope, min: 45, max: 10}", `layers[1] "snow" rules[0]: min 45 > max 10`},
	} {
		src := "layers:\n  - name: ground\n  - name: snow\n    rules:\n      - " + tc.rule + "\n"
		s, err := Parse([]byte(src), "weather.yaml")
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		_, err = Pack(s, testGeom)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.rule, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: packed, want %q", tc.rule, tc.want)
			continue
		}
		ve := &ValidationError{File: "weather.yaml", Problems: Errors(Validate(s))}
		if msg := ve.Error(); !strings.Contains(msg, "weather.yaml: "+tc.want) {
			t.Errorf("%s: %q, want %q", tc.rule, msg, tc.want)
		}
	}
	// A population may band aspect too.
	s := AspectStack()
	if ps := Errors(Validate(s)); len(ps) != 0 {
		t.Fatalf("AspectStack: %v", ps)
	}
	c, err := CompilePopulation(s, 0, testGeom)
	if err != nil || c.Needs()&NeedAspect == 0 {
		t.Fatalf("population reading aspect: needs %b, %v", c.Needs(), err)
	}
}
