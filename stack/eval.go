package stack

import "math"

// This file is the per-texel reference math: the Go twins of the functions of the same names in
// shaders/terrain_layer_weights.wgsl. Everything is float32 in the WGSL order of operations
// (docs/design.md, "Band, stack, quantization"); WGSL's mix/smoothstep are not used on either side.

// smooth01 is the smoothstep polynomial on an already clamped t.
func smooth01(t float32) float32 { return t * t * (3 - 2*t) }

// clamp01 clamps to [0, 1]; NaN maps to 0 so a broken input yields a defined byte, never a panic.
func clamp01(t float32) float32 {
	if !(t > 0) {
		return 0
	}
	if t > 1 {
		return 1
	}
	return t
}

// Band is a rule's coverage of value v (in the rule's input unit) given n, the rule's jitter noise
// at the texel (in [0, 1)): v is moved by at most ±jitter, then banded between min and max with a
// smooth feather of half-width softness (softness 0: a hard, inclusive step), then inverted if
// asked. A rule without jitter ignores n.
func Band(v float32, r *PackedRule, n float32) float32 {
	if r.Jitter != 0 {
		v = v + r.Jitter*(2*n-1)
	}
	c := float32(1)
	s := r.Softness
	if r.Flags&FlagHasMin != 0 {
		if s == 0 {
			if !(v >= r.Min) {
				c = 0
			}
		} else {
			c *= smooth01(clamp01((v - (r.Min - s)) * r.InvTwoSoft))
		}
	}
	if r.Flags&FlagHasMax != 0 {
		if s == 0 {
			if !(v <= r.Max) {
				c = 0
			}
		} else {
			c *= 1 - smooth01(clamp01((v-(r.Max-s))*r.InvTwoSoft))
		}
	}
	if r.Flags&FlagInvert != 0 {
		c = 1 - c
	}
	return c
}

// Compose turns per-layer coverage into shares, top down: each layer takes its coverage of what is
// still showing and layer 0 gets the rest (coverage[0] is not read). The shares add to one by
// construction; nothing is divided by a sum, so an unclaimed texel is ground, never a hole.
func Compose(coverage [8]float32) [8]float32 {
	var share [8]float32
	remaining := float32(1)
	for l := 7; l >= 1; l-- {
		share[l] = coverage[l] * remaining
		remaining = remaining - share[l]
	}
	share[0] = remaining
	return share
}

// Quantize writes eight shares as bytes that sum to exactly 255 (largest remainder; ties go to the
// lower layer index), so a material blending by them needs no renormalization. Shares are clamped
// to [0, 1] first (NaN counts as 0); any vector, even all zero, yields a sum of 255.
func Quantize(share [8]float32) [8]uint8 {
	var q [8]int32
	var r [8]float32
	var sum int32
	for k := 0; k < 8; k++ {
		v := clamp01(share[k]) * 255
		f := float32(math.Floor(float64(v)))
		q[k] = int32(f)
		r[k] = v - f
		sum += q[k]
	}
	return largestRemainder(q, r, sum)
}

// largestRemainder hands out what the floors q (summing to sum) leave of 255, one unit at a time
// to the largest remainder r (ties to the lower index), or takes the excess back from the
// smallest: Quantize's last step.
func largestRemainder(q [8]int32, r [8]float32, sum int32) [8]uint8 {
	d := 255 - sum
	for d > 0 {
		best := 0
		for k := 1; k < 8; k++ {
			if r[k] > r[best] {
				best = k
			}
		}
		q[best]++
		r[best] = -1
		d--
	}
	for d < 0 {
		best := -1
		for k := 0; k < 8; k++ {
			if q[k] > 0 && (best < 0 || r[k] < r[best]) {
				best = k
			}
		}
		q[best]--
		r[best] = 2
		d++
	}
	var out [8]uint8
	for k := range q {
		out[k] = uint8(q[k])
	}
	return out
}
