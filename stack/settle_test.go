package stack

import (
	"math"
	"math/rand"
	"testing"

	"strata/noise"
)

// settled must agree exactly with Band for every noise value whenever it claims to know the answer.
func TestSettledAgreesWithBand(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	claimed := 0
	for trial := 0; trial < 20000; trial++ {
		r := PackedRule{Softness: float32(rng.ExpFloat64()) * float32(rng.Intn(2)), Jitter: float32(rng.ExpFloat64())}
		if rng.Intn(3) > 0 {
			r.Flags |= FlagHasMin
			r.Min = float32(rng.NormFloat64() * 10)
		}
		if rng.Intn(3) > 0 {
			r.Flags |= FlagHasMax
			r.Max = r.Min + float32(rng.ExpFloat64()*10)
		}
		if rng.Intn(2) == 0 {
			r.Flags |= FlagInvert
		}
		if r.Softness > 0 {
			r.InvTwoSoft = 1 / (2 * r.Softness)
		}
		b := newSettleBounds(&r)
		v := float32(rng.NormFloat64() * 20)
		c, ok := b.settled(v, r.Flags)
		if !ok {
			continue
		}
		claimed++
		for _, n := range []float32{0, 1e-7, 0.25, 0.5, 0.75, 0.99999994, float32(rng.Float64())} {
			if got := Band(v, &r, n); got != c {
				t.Fatalf("rule %+v at v=%v n=%v: Band = %v, settled claims %v", r, v, n, got, c)
			}
		}
	}
	if claimed < 5000 {
		t.Errorf("settled decided only %d of 20000 cases; the shortcut is not doing its job", claimed)
	}
}

// randomJitterRule is a rule with jitter whose band edges sit in the range of the values drawn
// below, so that many texels need the noise and progressive settling has work to do.
func randomJitterRule(rng *rand.Rand) PackedRule {
	r := PackedRule{Softness: float32(rng.ExpFloat64()) * float32(rng.Intn(2)), Jitter: float32(rng.ExpFloat64() * 2)}
	if rng.Intn(3) > 0 {
		r.Flags |= FlagHasMin
		r.Min = float32(rng.NormFloat64() * 5)
	}
	if rng.Intn(3) > 0 || r.Flags&FlagHasMin == 0 {
		r.Flags |= FlagHasMax
		r.Max = r.Min + float32(rng.ExpFloat64()*8)
	}
	if rng.Intn(2) == 0 {
		r.Flags |= FlagInvert
	}
	if r.Softness > 0 {
		r.InvTwoSoft = 1 / (2 * r.Softness)
	}
	r.Seed = rng.Uint32()
	r.InvFeatureSize = 1 / float32(1+rng.ExpFloat64()*50)
	r.Octaves = uint32(1 + rng.Intn(int(MaxOctaves)))
	if rng.Intn(2) == 0 {
		r.Octaves = 4
	}
	return r
}

// Progressive settling (jitterBand stopping the fbm early) must give exactly the full
// evaluation, Band(v, r, fbm(...)), at every texel; and it must actually stop early often.
func TestProgressiveSettleAgreesWithBand(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	early, full := 0, 0
	for trial := 0; trial < 4000; trial++ {
		pr := randomJitterRule(rng)
		cr := compiledRule{PackedRule: pr, oct: max(1, min(pr.Octaves, MaxOctaves)), inv: pr.InvFeatureSize}
		cr.settle = newSettleBounds(&cr.PackedRule)
		cr.hw, cr.invNorm = partialHalfWidths(cr.oct)
		for k := uint32(0); k < cr.oct; k++ {
			cr.jit[k] = noise.PCG(noise.PCG(pr.Seed + k))
		}
		if !cr.settle.usable {
			continue
		}
		for i := 0; i < 200; i++ {
			x := float32(rng.Float64()*4000 - 2000)
			z := float32(rng.Float64()*4000 - 2000)
			// values around the edges, within a few jitters of them
			edge := pr.Min
			if pr.Flags&FlagHasMax != 0 && (pr.Flags&FlagHasMin == 0 || rng.Intn(2) == 0) {
				edge = pr.Max
			}
			v := edge + float32(rng.NormFloat64())*(pr.Jitter+pr.Softness)
			want := Band(v, &cr.PackedRule, noise.FBMInv(x, z, cr.inv, cr.oct, pr.Seed))
			if _, ok := cr.settle.settled(v, pr.Flags); ok {
				continue
			}
			got := cr.jitterBand(v, x, z)
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("rule %+v at v=%v (%v, %v): progressive %v, full %v", pr, v, x, z, got, want)
			}
			// jitterBand checks after half the octaves only; the check must be exact after any
			// octave, so every octave's partial sum is checked against the full evaluation here.
			if stoppedEarly(t, &cr, v, x, z, want) {
				early++
			} else {
				full++
			}
		}
	}
	t.Logf("progressive settling could stop early at %d of %d texels the whole-range test could not decide", early, early+full)
	if early < (early+full)/10 {
		t.Errorf("progressive settling stopped early at only %d of %d texels", early, early+full)
	}
}

// stoppedEarly reports whether settledPartial decides after some octave before the last, and
// fails the test when any octave's decision differs from want, the full evaluation.
func stoppedEarly(t *testing.T, r *compiledRule, v, x, z, want float32) bool {
	t.Helper()
	qx, qz := x*r.inv, z*r.inv
	var sum float32
	amp := float32(1)
	early := false
	for k := uint32(0); k+1 < r.oct; k++ {
		sum += amp * noise.GradNoiseAt(qx, qz, r.jit[k])
		amp *= 0.5
		qx *= 2
		qz *= 2
		if c, ok := r.settle.settledPartial(v, r.Jitter, 0.5+(sum*r.invNorm)*diag, r.hw[k], r.Flags); ok {
			if math.Float32bits(c) != math.Float32bits(want) {
				t.Fatalf("rule %+v at v=%v (%v, %v): settled after octave %d as %v, full %v", r.PackedRule, v, x, z, k, c, want)
			}
			early = true
		}
	}
	return early
}

// settledPartial must be exact for any noise the remaining octaves can still produce: for the
// extreme remaining contributions (±noiseBound·√½ per unit of remaining amplitude, the worst the
// octaves left can do) and values between, the full band equals the settled answer.
func TestSettledPartialBoundsTheRest(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	claimed := 0
	for trial := 0; trial < 20000; trial++ {
		pr := randomJitterRule(rng)
		b := newSettleBounds(&pr)
		if !b.usable {
			continue
		}
		oct := max(2, min(pr.Octaves, MaxOctaves))
		hw, invNorm := partialHalfWidths(oct)
		k := uint32(rng.Intn(int(oct - 1)))
		nc := float32(rng.Float64()*1.2 - 0.1)
		v := pr.Min + float32(rng.NormFloat64())*(pr.Jitter+pr.Softness)*2
		c, ok := b.settledPartial(v, pr.Jitter, nc, hw[k], pr.Flags)
		if !ok {
			continue
		}
		claimed++
		// remaining amplitude share, as real numbers: the rest moves n by at most rem·√½·√½.
		rem := float64(hw[k]-noiseSlack) / (noiseBound * float64(diag)) // remaining amplitude / norm
		_ = invNorm
		for _, f := range []float64{-1, -0.5, 0, 0.5, 1} {
			n := float64(nc) + f*rem*0.70710678*0.70710678
			n = math.Min(math.Max(n, 0), float64(noise.MaxValue))
			if got := Band(v, &pr, float32(n)); got != c {
				t.Fatalf("rule %+v v=%v nc=%v hw=%v: Band(n=%v) = %v, settledPartial claims %v", pr, v, nc, hw[k], n, got, c)
			}
		}
	}
	if claimed < 2000 {
		t.Errorf("settledPartial decided only %d cases", claimed)
	}
}

// The bound progressive settling relies on: |GradNoise| ≤ √½ < noiseBound. noise's
// TestGradNoiseBound proves the √½ over every combination of corner gradients; here random points
// of the noise as stack evaluates it.
func TestGradNoiseBound(t *testing.T) {
	var worst float32
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 200000; i++ {
		g := noise.GradNoise(float32(rng.NormFloat64()*1e3), float32(rng.NormFloat64()*1e3), rng.Uint32())
		worst = max(worst, abs32(g))
	}
	t.Logf("max |GradNoise| seen: %v", worst)
	if worst > 0.70710679 || worst >= noiseBound {
		t.Fatalf("|GradNoise| reached %v, above √½ (noiseBound %v)", worst, noiseBound)
	}
}
