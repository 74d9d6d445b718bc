package stack

import (
	"math"
	"math/rand/v2"
	"testing"

	"strata/noise"
)

func rule(flags uint32, lo, hi, soft, jit float32) *PackedRule {
	r := &PackedRule{Flags: flags, Min: lo, Max: hi, Softness: soft, Jitter: jit, InvFeatureSize: 1.0 / 64, Octaves: 4}
	if soft != 0 {
		r.InvTwoSoft = 1 / (2 * soft)
	}
	return r
}

func TestBand(t *testing.T) {
	const mn, mx = FlagHasMin, FlagHasMax
	tests := []struct {
		desc string
		v    float32
		r    *PackedRule
		n    float32
		want float32
	}{
		{"no bounds covers", 123, rule(0, 0, 0, 0, 0), 0, 1},
		{"open max: above min", 40, rule(mn, 30, 0, 0, 0), 0, 1},
		{"open max: hard step inclusive at min", 30, rule(mn, 30, 0, 0, 0), 0, 1},
		{"open max: just below min", 29.999, rule(mn, 30, 0, 0, 0), 0, 0},
		{"open min: hard step inclusive at max", 5, rule(mx, 0, 5, 0, 0), 0, 1},
		{"open min: above max", 5.001, rule(mx, 0, 5, 0, 0), 0, 0},
		{"band inside", 3, rule(mn|mx, 2, 4, 0, 0), 0, 1},
		{"band outside", 5, rule(mn|mx, 2, 4, 0, 0), 0, 0},
		{"soft min centre is half", 30, rule(mn, 30, 0, 5, 0), 0, 0.5},
		{"soft min lower edge", 25, rule(mn, 30, 0, 5, 0), 0, 0},
		{"soft min upper edge", 35, rule(mn, 30, 0, 5, 0), 0, 1},
		{"soft max centre is half", 10, rule(mx, 0, 10, 2, 0), 0, 0.5},
		{"soft max beyond", 12, rule(mx, 0, 10, 2, 0), 0, 0},
		{"soft quarter", 27.5, rule(mn, 30, 0, 5, 0), 0, 0.15625},
		{"invert inside", 3, rule(mn|mx|FlagInvert, 2, 4, 0, 0), 0, 0},
		{"invert outside", 5, rule(mn|mx|FlagInvert, 2, 4, 0, 0), 0, 1},
		{"invert no bounds", 5, rule(FlagInvert, 0, 0, 0, 0), 0, 0},
		{"jitter n=0.5 is no move", 30, rule(mn, 30, 0, 0, 4), 0.5, 1},
		{"jitter n=0 moves down by jitter", 33, rule(mn, 30, 0, 0, 4), 0, 0},
		{"jitter n=0 moves down to edge", 34, rule(mn, 30, 0, 0, 4), 0, 1},
		{"jitter near 1 moves up", 26.01, rule(mn, 30, 0, 0, 4), noise.MaxValue, 1},
		{"no jitter ignores n", 29, rule(mn, 30, 0, 0, 0), 0.99, 0},
	}
	for _, tc := range tests {
		if got := Band(tc.v, tc.r, tc.n); math.Abs(float64(got-tc.want)) > 1e-6 {
			t.Errorf("%s: Band(%v, n=%v) = %v, want %v", tc.desc, tc.v, tc.n, got, tc.want)
		}
	}
}

// TestBandJitterBounds: whatever n in [0,1) is, the jittered value never leaves v ± jitter, so a
// hard step at min is always passed by v ≥ min+jitter and never by v < min-jitter.
func TestBandJitterBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		jit := rng.Float32() * 10
		lo := rng.Float32()*100 - 50
		n := rng.Float32()
		if n >= 1 {
			n = noise.MaxValue
		}
		r := rule(FlagHasMin, lo, 0, 0, jit)
		if got := Band(lo+jit, r, n); got != 1 {
			t.Fatalf("v=min+jitter (%v+%v) n=%v: got %v, want 1", lo, jit, n, got)
		}
		if got := Band(lo-jit*1.0001-1e-3, r, n); got != 0 {
			t.Fatalf("v<min-jitter (%v-%v) n=%v: got %v, want 0", lo, jit, n, got)
		}
	}
}

func TestCompose(t *testing.T) {
	tests := []struct {
		desc string
		cov  [8]float32
		want [8]float32
	}{
		{"nothing claims: all to layer 0", [8]float32{}, [8]float32{1}},
		{"layer 0 coverage is ignored", [8]float32{0.3}, [8]float32{1}},
		{"full top layer leaves nothing below", [8]float32{0, 1, 1, 0, 0, 0, 0, 1}, [8]float32{0, 0, 0, 0, 0, 0, 0, 1}},
		{"half coverage lets half through", [8]float32{0, 1, 0.5}, [8]float32{0, 0.5, 0.5}},
		{"half over half", [8]float32{0, 0.5, 0.5}, [8]float32{0.25, 0.25, 0.5}},
	}
	for _, tc := range tests {
		got := Compose(tc.cov)
		var sum float32
		for k := range got {
			sum += got[k]
			if math.Abs(float64(got[k]-tc.want[k])) > 1e-7 {
				t.Errorf("%s: Compose(%v) = %v, want %v", tc.desc, tc.cov, got, tc.want)
				break
			}
		}
		if math.Abs(float64(sum-1)) > 1e-6 {
			t.Errorf("%s: shares sum to %v", tc.desc, sum)
		}
	}
}

func sum255(q [8]uint8) int {
	s := 0
	for _, v := range q {
		s += int(v)
	}
	return s
}

func TestQuantize(t *testing.T) {
	tests := []struct {
		desc  string
		share [8]float32
		want  [8]uint8
	}{
		{"all layer 0", [8]float32{1}, [8]uint8{255}},
		{"half and half: tie to lower index", [8]float32{0.5, 0.5}, [8]uint8{128, 127}},
		{"thirds", [8]float32{1.0 / 3, 1.0 / 3, 1.0 / 3}, [8]uint8{85, 85, 85}},
		{"eighths: ties to lower indices", [8]float32{0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125}, [8]uint8{32, 32, 32, 32, 32, 32, 32, 31}},
		{"top only", [8]float32{0, 0, 0, 0, 0, 0, 0, 1}, [8]uint8{0, 0, 0, 0, 0, 0, 0, 255}},
	}
	for _, tc := range tests {
		if got := Quantize(tc.share); got != tc.want {
			t.Errorf("%s: Quantize(%v) = %v, want %v", tc.desc, tc.share, got, tc.want)
		}
	}
}

// TestQuantizeSums255 is the property the material shader relies on: any share vector, however
// degenerate, quantizes to bytes summing to exactly 255.
func TestQuantizeSums255(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(s [8]float32) {
		t.Helper()
		if q := Quantize(s); sum255(q) != 255 {
			t.Fatalf("Quantize(%v) = %v sums to %d", s, q, sum255(q))
		}
	}
	check([8]float32{})
	check([8]float32{float32(math.NaN()), 2, -1, float32(math.Inf(1))})
	for i := 0; i < 100000; i++ {
		var cov [8]float32
		for k := range cov {
			switch rng.IntN(4) {
			case 0:
				cov[k] = 0
			case 1:
				cov[k] = 1
			case 2:
				cov[k] = float32(rng.IntN(5)) / 4 // ties
			default:
				cov[k] = rng.Float32()
			}
		}
		s := Compose(cov)
		check(s)
		// Perturb to a sum of 1±1e-6 and beyond.
		for k := range s {
			s[k] *= 1 + float32(rng.NormFloat64()*1e-6)
		}
		check(s)
		var raw [8]float32
		for k := range raw {
			raw[k] = rng.Float32() * 0.3
		}
		check(raw)
	}
}

// TestFBMMatchesNoise holds the evaluator's hoisted fbm to noise.FBM bit for bit.
func TestFBMMatchesNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		x := (rng.Float32() - 0.5) * 20000
		z := (rng.Float32() - 0.5) * 20000
		fs := 1 + rng.Float32()*300
		oct := uint32(1 + rng.IntN(MaxOctaves))
		seed := rng.Uint32()
		var pre [MaxOctaves]uint32
		for k := uint32(0); k < oct; k++ {
			pre[k] = noise.PCG(noise.PCG(seed + k))
		}
		want := noise.FBM(x, z, fs, oct, seed)
		if got := fbm(x, z, 1/fs, oct, &pre); got != want {
			t.Fatalf("fbm(%v, %v, fs %v, oct %d, seed %d) = %v, noise.FBM = %v", x, z, fs, oct, seed, got, want)
		}
	}
}
