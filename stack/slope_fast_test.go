package stack

import (
	"math"
	"math/rand/v2"
	"testing"

	"strata/field"
)

// degreeBounds are the bounds the tangent conversions are tried on: ordinary slopes, the ends of
// the range, beyond it, and magnitudes where float32 loses its relative precision.
var degreeBounds = []float64{0, 1e-30, 1e-20, 2e-20, 1e-10, 1e-3, 0.5, 1, 8, 18, 30, 35, 45, 60, 75, 89,
	89.9, 89.95, 89.96, 89.99, 89.9999, 90, 90.001, 91, 180, 1e30, -1e-30, -1, -90, math.NaN(),
	math.Inf(1), math.Inf(-1)}

// tanBelow and tanAbove keep their promises: every float32 gradient below tanBelow(B) has a slope
// below B, every one above tanAbove(B) (+Inf included) a slope above B — checked on the 4096
// float32 values nearest each threshold and on random ones across the range — and they are tight
// enough to settle almost everything (their slopes within 1e-4 of B).
func TestTangentBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	bounds := degreeBounds
	for range 300 {
		bounds = append(bounds, r.Float64()*92-1)
	}
	inf := float32(math.Inf(1))
	for _, b := range bounds {
		lo, hi := tanBelow(b), tanAbove(b)
		var below, above []float32
		m := lo
		for range 4096 {
			if m = math.Nextafter32(m, 0); m < 0 || m == 0 && lo == 0 {
				break
			}
			below = append(below, m)
		}
		m = hi
		for range 4096 {
			m = math.Nextafter32(max(m, 0), inf)
			above = append(above, m)
		}
		for range 4096 {
			if lo > 0 {
				below = append(below, lo*float32(r.Float64()))
			}
			if hi < inf {
				above = append(above, max(hi, 0)*(1+float32(r.ExpFloat64())))
			}
		}
		above = append(above, inf, math.MaxFloat32)
		for _, m := range below {
			if m < lo && !(float64(field.SlopeOfGrad(m)) < b) {
				t.Fatalf("bound %v°: gradient %v < tanBelow %v has slope %v", b, m, lo, field.SlopeOfGrad(m))
			}
		}
		for _, m := range above {
			if m > hi && !(float64(field.SlopeOfGrad(m)) > b) {
				t.Fatalf("bound %v°: gradient %v > tanAbove %v has slope %v", b, m, hi, field.SlopeOfGrad(m))
			}
		}
		if b >= 0.01 && b <= 89.9 {
			if sl, sh := float64(field.SlopeOfGrad(lo)), float64(field.SlopeOfGrad(hi)); sl < b*(1-1e-4) || sh > b*(1+1e-4) {
				t.Errorf("bound %v°: the tangents' slopes %v, %v are not within 1e-4 of it", b, sl, sh)
			}
		}
	}
}

// Where gradBounds.flat settles a slope rule, band gives exactly that, whatever the position's
// jitter noise: on random slope rules (edges, feathers, jitter, inversion), at gradients near
// every threshold and across the range.
func TestGradBoundsMatchBand(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	settled := 0
	for trial := range 400 {
		ru := Rule{Input: InputSlope, Invert: r.IntN(3) == 0}
		if r.IntN(4) > 0 {
			ru.Min = F(degreeBounds[r.IntN(len(degreeBounds)-3)])
			if r.IntN(2) == 0 {
				ru.Min = F(r.Float64()*95 - 2)
			}
		}
		if r.IntN(3) == 0 {
			ru.Max = F(r.Float64()*95 - 2)
			if ru.Min != nil && *ru.Min > *ru.Max {
				ru.Min, ru.Max = ru.Max, ru.Min
			}
		}
		if r.IntN(2) == 0 {
			ru.Softness = []float64{1e-6, 0.5, 4, 30, r.Float64() * 10}[r.IntN(5)]
		}
		if r.IntN(2) == 0 {
			ru.Jitter = []float64{1e-6, 0.5, 3, 20, r.Float64() * 10}[r.IntN(5)]
		}
		s := slopeRule(ru)
		c, err := Compile(s, testGeom)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		cr := &c.rules[0]
		var ms []float32
		for _, th := range []float32{cr.grad.minOut, cr.grad.minIn, cr.grad.maxIn, cr.grad.maxOut} {
			m := th
			for range 200 {
				ms = append(ms, m)
				m = math.Nextafter32(m, 0)
			}
			m = th
			for range 200 {
				m = math.Nextafter32(m, float32(math.Inf(1)))
				ms = append(ms, m)
			}
		}
		for range 2000 {
			ms = append(ms, float32(r.ExpFloat64()*2))
		}
		ms = append(ms, 0, float32(math.Inf(1)), float32(math.NaN()), math.MaxFloat32)
		for _, m := range ms {
			if !(m >= 0) && m == m {
				continue // gradients are ≥ 0 or NaN
			}
			b, ok := cr.grad.flat(m)
			if !ok {
				continue
			}
			settled++
			for range 4 {
				in := TexelInputs{X: float32(r.NormFloat64() * 1e4), Z: float32(r.NormFloat64() * 1e4), Slope: field.SlopeOfGrad(m)}
				if want := cr.band(&in); math.Float32bits(want) != math.Float32bits(b) {
					t.Fatalf("trial %d, rule %+v (min %v max %v): at gradient %v (slope %v) flat gives %v, band %v",
						trial, ru, deref(ru.Min), deref(ru.Max), m, in.Slope, b, want)
				}
			}
		}
	}
	if settled < 100000 {
		t.Errorf("only %d gradients settled: the test does not exercise flat", settled)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// quantizeFast is Quantize on shares as stacks compose them and on any vector at all: ties,
// remainders on exact 1/255 steps, NaN, infinities, negatives and values past 1.
func TestQuantizeFast(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	odd := []float32{0, 1, 0.5, 1.0 / 255, 0.5 / 255, 127.5 / 255, float32(math.NaN()), float32(math.Inf(1)),
		float32(math.Inf(-1)), -0.25, 1.5, float32(math.Copysign(0, -1)), 0.99999994, 1e-30}
	for k := range 100000 {
		var sh [8]float32
		switch k % 3 {
		case 0:
			var cov [8]float32
			for l := 1; l < 1+r.IntN(8); l++ {
				cov[l] = float32(r.Float64())
				if r.IntN(3) == 0 {
					cov[l] = float32(r.IntN(3)) / 2
				}
			}
			sh = Compose(cov)
		case 1:
			for l := range sh {
				sh[l] = odd[r.IntN(len(odd))]
			}
		default:
			for l := range sh {
				sh[l] = float32(r.IntN(256)) / 255 * float32(r.IntN(2))
			}
		}
		if got, want := quantizeFast(&sh), Quantize(sh); got != want {
			t.Fatalf("shares %v: quantizeFast %v, Quantize %v", sh, got, want)
		}
	}
}
