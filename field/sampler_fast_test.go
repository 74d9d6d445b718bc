package field

import (
	"math"
	"math/rand/v2"
	"testing"
)

// specials are values a grid can hold that the Texel shortcut must not be trusted with (and two
// it must: the largest tame magnitude and a subnormal).
var specials = []float32{
	float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
	math.MaxFloat32, -math.MaxFloat32, math.Float32frombits(tameMax + 1), math.Float32frombits(tameMax),
	-math.Float32frombits(tameMax), math.SmallestNonzeroFloat32, 0,
}

// randomGrid is a w×h grid of smooth ground with, when wild, a few special values sprinkled in.
func randomGrid(r *rand.Rand, w, h int, wild bool) *Grid {
	g := NewGrid(w, h)
	a, fx, fz := r.Float64()*500, r.Float64()*0.7, r.Float64()*0.7
	step := 0.0
	if r.IntN(3) == 0 {
		step = 0.5 + r.Float64()*20 // terraces: equal neighbours, zero gradients
	}
	for j := range h {
		for i := range w {
			v := a*math.Sin(fx*float64(i)+1.3*math.Sin(fz*float64(j))) + r.Float64()*a*0.01
			if step > 0 {
				v = math.Floor(v/step) * step
			}
			g.Data[j*w+i] = float32(v)
		}
	}
	if wild {
		for range 1 + r.IntN(4) {
			g.Data[r.IntN(len(g.Data))] = specials[r.IntN(len(specials))]
		}
	}
	return g
}

// same32 is bit-for-bit equality, except that any two NaNs are equal: an x86 operation on two
// NaNs returns the first operand's, and which operand of a commutative operation comes first is
// the compiler's choice, so NaN payloads are not reproducible between two compilations of the
// same expression (and every reader treats all NaNs alike).
func same32(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b }

// At(AxisX(px), AxisZ(pz)) is Bilinear(px, pz) bit for bit: on random blocks of random grids
// (special values included), at positions inside, outside, on texel centres and absurd.
func TestAtMatchesBilinear(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	texels := 0
	for trial := range 300 {
		w, h := 1+r.IntN(40), 1+r.IntN(40)
		p := Placement{Size: [2]float64{float64(w) * (0.1 + r.Float64()*30), float64(h) * (0.1 + r.Float64()*30)},
			Origin: [2]float64{r.NormFloat64() * 1e4, r.NormFloat64() * 1e3}}
		if trial%4 < 2 { // texel sizes and origins as DEMs have them: centres land exactly
			nice := []float64{0.5, 1, 2, 10, 30, 0.25}
			p.Size = [2]float64{float64(w) * nice[r.IntN(len(nice))], float64(h) * nice[r.IntN(len(nice))]}
			p.Origin = [2]float64{float64(r.IntN(2000) - 1000), 137.5 * float64(r.IntN(3))}
		}
		geo := mustGeo(t, p, w, h, w, h)
		g := randomGrid(r, w, h, trial%4 == 3)
		i0, j0 := r.IntN(w), r.IntN(h)
		s := geo.RegionSampler(g, i0, j0, 1+r.IntN(w), 1+r.IntN(h))
		mn := p.Min()
		for range 200 {
			var px, pz float32
			switch r.IntN(4) {
			case 0: // anywhere near the field
				px = float32(mn[0] + (r.Float64()*1.4-0.2)*p.Size[0])
				pz = float32(mn[1] + (r.Float64()*1.4-0.2)*p.Size[1])
			case 1: // texel centres, as a weights grid equal to the height grid places them
				px, pz = geo.WeightPos(r.IntN(w), r.IntN(h))
			case 2: // a texel centre ± one texel
				px, pz = geo.WeightPos(r.IntN(w), r.IntN(h))
				px += float32(r.IntN(3)-1) * geo.HTexel[0]
				pz += float32(r.IntN(3)-1) * geo.HTexel[1]
			default:
				px, pz = specials[r.IntN(len(specials))], specials[r.IntN(len(specials))]
			}
			want := s.Bilinear(px, pz)
			x, z := s.AxisX(px), s.AxisZ(pz)
			if got := s.At(x, z); !same32(got, want) {
				t.Fatalf("trial %d: At at (%v, %v) = %v, Bilinear %v", trial, px, pz, got, want)
			}
			if x.Exact() && z.Exact() && s.Tame() {
				texels++
				if got := s.Texel(x, z); !same32(got, want) {
					t.Fatalf("trial %d: Texel at (%v, %v) = %v, Bilinear %v", trial, px, pz, got, want)
				}
			}
		}
	}
	if texels < 10000 {
		t.Errorf("only %d taps took Texel: the test does not exercise it", texels)
	}
	var zero Sampler
	if v := zero.At(zero.AxisX(1), zero.AxisZ(2)); v != 0 || zero.Texel(zero.AxisX(1), zero.AxisZ(2)) != 0 || zero.Tame() {
		t.Errorf("zero Sampler: At %v, Texel %v, Tame %v; want 0, 0, false", v, zero.Texel(Axis{}, Axis{}), zero.Tame())
	}
}

// The lemma Texel rests on: lerp(lerp(a, b, 0), lerp(c, d, 0), 0) == a for tame a, b, c, d, and
// Tame refuses every value for which it can fail.
func TestLerpZeroFraction(t *testing.T) {
	tame := []float32{0, 1, -1, 0.5, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.Float32frombits(tameMax), -math.Float32frombits(tameMax), 1e-38, 3.4e37, -2.7e38 / 2, 1234.5678}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		tame = append(tame, math.Float32frombits(r.Uint32()&0x7effffff|r.Uint32()&0x80000000))
	}
	isTame := func(v float32) bool {
		g := &Grid{W: 1, H: 1, Data: []float32{v}}
		geo := Geometry{InvHTexel: [2]float32{1, 1}}
		s := geo.Sampler(g)
		return s.Tame()
	}
	for _, v := range tame {
		if !isTame(v) && !(v == 0 && math.Signbit(float64(v))) {
			t.Fatalf("Tame refuses %v (%#x)", v, math.Float32bits(v))
		}
	}
	for _, v := range specials[:7] {
		if isTame(v) {
			t.Errorf("Tame accepts %v (%#x)", v, math.Float32bits(v))
		}
	}
	for k := range 200000 {
		a, b := tame[r.IntN(len(tame))], tame[r.IntN(len(tame))]
		c, d := tame[r.IntN(len(tame))], tame[r.IntN(len(tame))]
		if k < len(tame) {
			a = tame[k]
		}
		if math.Signbit(float64(a)) && a == 0 || math.Signbit(float64(c)) && c == 0 {
			continue
		}
		if got := lerp(lerp(a, b, 0), lerp(c, d, 0), 0); !same32(got, a) {
			t.Fatalf("lerp(lerp(%v, %v, 0), lerp(%v, %v, 0), 0) = %v, want %v", a, b, c, d, got, a)
		}
	}
	// Why -0 and huge values are refused: each breaks the lemma.
	nz := float32(math.Copysign(0, -1))
	if got := lerp(nz, 1, 0); same32(got, nz) {
		t.Errorf("lerp(-0, 1, 0) = -0: the -0 exclusion is not needed any more?")
	}
	if got := lerp(-math.MaxFloat32, math.MaxFloat32, 0); got == got {
		t.Errorf("lerp(-max, max, 0) = %v, want NaN ((b-a) overflows)", got)
	}
}

// The K forms are the definitions with the step's constants hoisted, and SlopeK is
// SlopeOfGrad(GradK); the slope of an infinite gradient is exactly 90°.
func TestStepConstants(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		v := func() float32 {
			if r.IntN(20) == 0 {
				return specials[r.IntN(len(specials))]
			}
			return float32(r.NormFloat64() * 100)
		}
		hxp, hxm, hzp, hzm, hc := v(), v(), v(), v(), v()
		g := float32(0.01 + r.Float64()*50)
		if !same32(SlopeFromTaps(hxp, hxm, hzp, hzm, g), SlopeK(hxp, hxm, hzp, hzm, 0.5/g)) ||
			!same32(SlopeK(hxp, hxm, hzp, hzm, 0.5/g), SlopeOfGrad(GradK(hxp, hxm, hzp, hzm, 0.5/g))) ||
			!same32(CurvatureFromTaps(hxp, hxm, hzp, hzm, hc, g), CurvatureK(hxp, hxm, hzp, hzm, hc, 1/float32(g*g))) {
			t.Fatalf("taps %v %v %v %v %v, g %v: the K forms differ", hxp, hxm, hzp, hzm, hc, g)
		}
	}
	if s := SlopeOfGrad(float32(math.Inf(1))); s != 90 {
		t.Errorf("SlopeOfGrad(+Inf) = %v, want 90", s)
	}
}
