package stack

import (
	"math/rand"
	"testing"
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
