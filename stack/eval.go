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

// The turn of an aspect band, as float32: the band's arithmetic (AspectBand) and the WGSL's
// aspectBand use these same constants.
const (
	aspectFull    = float32(360)
	aspectHalf    = float32(180)
	aspectInvFull = float32(1.0 / 360)
)

// AspectBand is an aspect rule's coverage of aspect v (degrees, field.AspectK) given n, its jitter
// noise: the band is an arc of the compass, from min clockwise to max (min > max crosses north:
// 315..45 is the north-facing quarter), with both edges feathered by softness measured along the
// circle. On flat ground (v is field.AspectFlat, or NaN from a broken height) no aspect is
// defined and the band is 0, before invert. Otherwise v is jittered as Band does, then compared
// with the arc by its circular distance from the arc's centre:
//
//	w = max − min (+360 when negative); hw = w/2; c = min + hw
//	d = v − c; d = d − 360·floor((d + 180)·(1/360))      d in [−180, 180)
//	coverage = |d| ≤ hw (softness 0), else 1 − smooth01(clamp01((|d| − (hw − s))·invTwoSoft))
//
// which is Band's feather at each edge wherever the arc is wider than 2·softness. A band of
// w ≥ 360 (min 0, max 360), or with neither edge given, covers every aspect. Validation refuses
// exactly one edge omitted; should one reach here the missing edge reads 0 (min) or 360 (max).
func AspectBand(v float32, r *PackedRule, n float32) float32 {
	c := float32(0)
	if v >= 0 {
		if r.Jitter != 0 {
			v = v + r.Jitter*(2*n-1)
		}
		c = aspectArc(v, r)
	}
	if r.Flags&FlagInvert != 0 {
		c = 1 - c
	}
	return c
}

// aspectArc is AspectBand's coverage of a defined (jittered) aspect v, before invert.
func aspectArc(v float32, r *PackedRule) float32 {
	hasMin, hasMax := r.Flags&FlagHasMin != 0, r.Flags&FlagHasMax != 0
	if !hasMin && !hasMax {
		return 1
	}
	lo, hi := float32(0), aspectFull
	if hasMin {
		lo = r.Min
	}
	if hasMax {
		hi = r.Max
	}
	w := hi - lo
	if w < 0 {
		w += aspectFull
	}
	if w >= aspectFull {
		return 1
	}
	hw := float32(w * 0.5)
	d := v - (lo + hw)
	d = d - float32(aspectFull*float32(math.Floor(float64(float32((d+aspectHalf)*aspectInvFull)))))
	if d < 0 {
		d = -d
	}
	s := r.Softness
	if s == 0 {
		if d <= hw {
			return 1
		}
		return 0
	}
	return 1 - smooth01(clamp01(float32((d-(hw-s))*r.InvTwoSoft)))
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
