package noise

import (
	"math"
	"testing"
)

// Known values pin the hash: if these change, every baked landscape's noise moves, and the WGSL
// twin (checked bit for bit against Hash2 by the gpu tests) must change with it.
func TestPCGKnownValues(t *testing.T) {
	// Reference values computed by hand from the definition in docs/design.md.
	ref := func(v uint32) uint32 {
		s := uint64(v)*747796405 + 2891336453
		st := uint32(s)
		w := uint64((st>>((st>>28)+4))^st) * 277803737
		wd := uint32(w)
		return (wd >> 22) ^ wd
	}
	for _, v := range []uint32{0, 1, 2, 12345, 0xffffffff, 0x80000000} {
		if got, want := PCG(v), ref(v); got != want {
			t.Errorf("PCG(%d) = %#x, want %#x", v, got, want)
		}
	}
}

func TestHashNegativeCoordinates(t *testing.T) {
	if Hash2(-1, 0, 7) == Hash2(1, 0, 7) {
		t.Error("Hash2(-1,0) == Hash2(1,0): negative lattice coordinates must hash apart")
	}
	if Hash2(3, 4, 1) == Hash2(4, 3, 1) {
		t.Error("Hash2 is symmetric in i and j")
	}
}

func TestU01Range(t *testing.T) {
	for _, h := range []uint32{0, 1, 0xff, 0x100, 0xffffffff} {
		u := U01(h)
		if u < 0 || u >= 1 {
			t.Errorf("U01(%#x) = %v, outside [0,1)", h, u)
		}
	}
	if U01(0xffffffff) != float32(16777215)/16777216 {
		t.Errorf("U01 max = %v", U01(0xffffffff))
	}
}

func TestFBMRangeAndSpread(t *testing.T) {
	var lo, hi float32 = 1, 0
	var sum float64
	n := 0
	for j := -200; j < 200; j++ {
		for i := -200; i < 200; i++ {
			v := FBM(float32(i)*3.7, float32(j)*2.9, 64, 4, 1)
			if v < 0 || v >= 1 || math.IsNaN(float64(v)) {
				t.Fatalf("FBM out of [0,1): %v at (%d,%d)", v, i, j)
			}
			lo = min(lo, v)
			hi = max(hi, v)
			sum += float64(v)
			n++
		}
	}
	mean := sum / float64(n)
	if mean < 0.45 || mean > 0.55 {
		t.Errorf("FBM mean = %.3f, want about 0.5", mean)
	}
	if hi-lo < 0.5 {
		t.Errorf("FBM spread %.3f..%.3f is too narrow to be useful as jitter", lo, hi)
	}
}

func TestGradNoiseZeroAtLatticePoints(t *testing.T) {
	for i := -5; i < 5; i++ {
		if v := GradNoise(float32(i), float32(2*i), 9); v != 0 {
			t.Errorf("GradNoise at lattice point (%d,%d) = %v, want 0", i, 2*i, v)
		}
	}
}

func TestFBMContinuity(t *testing.T) {
	// Neighbouring samples 1 cm apart at a 64 m feature size differ by very little.
	for i := 0; i < 1000; i++ {
		x := float32(i) * 1.37
		a := FBM(x, 100, 64, 4, 3)
		b := FBM(x+0.01, 100, 64, 4, 3)
		if d := math.Abs(float64(a - b)); d > 0.01 {
			t.Fatalf("FBM jumps by %v over 1 cm at x=%v", d, x)
		}
	}
}

func TestRuleSeedsDiffer(t *testing.T) {
	seen := map[uint32]uint32{}
	for r := uint32(0); r < 1000; r++ {
		s := RuleSeed(1, r)
		if prev, ok := seen[s]; ok {
			t.Fatalf("RuleSeed(1,%d) == RuleSeed(1,%d)", r, prev)
		}
		seen[s] = r
	}
}

func BenchmarkFBM4(b *testing.B) {
	var s float32
	for i := 0; b.Loop(); i++ {
		s += FBM(float32(i&1023)*1.3, float32(i>>10)*0.7, 64, 4, 5)
	}
	_ = s
}

// |GradNoise| ≤ √½, checked over every combination of the four corner gradients on a fine grid of
// the cell (the maximum, √½, is at the centre with all four gradients pointing at it): the bound
// stack's progressive settling relies on (stack.noiseBound).
func TestGradNoiseBound(t *testing.T) {
	var worst float32
	const steps = 48
	for h := uint32(0); h < 8*8*8*8; h++ {
		for a := 0; a <= steps; a++ {
			fx := float32(a) / steps
			for b := 0; b <= steps; b++ {
				fz := float32(b) / steps
				n00 := grad(h&7, fx, fz)
				n10 := grad(h>>3&7, fx-1, fz)
				n01 := grad(h>>6&7, fx, fz-1)
				n11 := grad(h>>9&7, fx-1, fz-1)
				u, w := fade(fx), fade(fz)
				v := lerp(lerp(n00, n10, u), lerp(n01, n11, u), w)
				worst = max(worst, v, -v)
			}
		}
	}
	t.Logf("max |GradNoise| over the corner gradients: %v", worst)
	if worst > 0.70710679 {
		t.Fatalf("|GradNoise| reached %v, above √½", worst)
	}
}
