package stack

import (
	"math"

	"strata/noise"
)

// settleBounds lets a jittered rule skip its noise where the noise cannot matter. Jitter moves the
// value by less than ±jitter; when the whole interval [v − jitter, v + jitter] lies where the band
// is flat (fully outside, or fully inside away from both feathers), every noise value gives the
// same coverage, exactly 0 or exactly 1, and that coverage is returned without drawing the noise.
// The bounds are widened by a relative margin so that float32 rounding inside Band can never turn
// a "settled" texel into a value other than the exact 0 or 1 the full evaluation returns: the
// result is bit-identical to Band, only cheaper. The WGSL kernel does the same (rule_settled).
type settleBounds struct {
	jit    float32 // half-width of the interval, jitter widened by its rounding
	minOut float32 // v' below this: the min edge gives exactly 0
	minIn  float32 // v' above this: the min edge gives exactly 1
	maxIn  float32 // v' below this: the max edge gives exactly 1
	maxOut float32 // v' above this: the max edge gives exactly 0
	hasMin bool
	hasMax bool
	usable bool
}

// settleMargin is the relative slack on every bound: far above float32 rounding (6e-8), far below
// any feather an artist would draw.
const settleMargin = 1e-5

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

func newSettleBounds(r *PackedRule) settleBounds {
	b := settleBounds{
		jit:    r.Jitter * (1 + settleMargin),
		hasMin: r.Flags&FlagHasMin != 0,
		hasMax: r.Flags&FlagHasMax != 0,
		usable: r.Jitter > 0 && finite32(r.Jitter) && finite32(r.Softness) && r.Input != laneAspect,
	}
	s := r.Softness
	if b.hasMin {
		m := settleMargin * (abs32(r.Min) + s)
		b.minOut = r.Min - s - m
		b.minIn = r.Min + s + m
		b.usable = b.usable && finite32(r.Min)
	}
	if b.hasMax {
		m := settleMargin * (abs32(r.Max) + s)
		b.maxIn = r.Max - s - m
		b.maxOut = r.Max + s + m
		b.usable = b.usable && finite32(r.Max)
	}
	return b
}

// settled returns the rule's coverage at input value v when no jitter can change it.
func (b *settleBounds) settled(v float32, flags uint32) (float32, bool) {
	if !b.usable || !finite32(v) {
		return 0, false
	}
	m := b.jit + abs32(v)*settleMargin
	return b.flat(v-m, v+m, flags)
}

// flat returns the coverage when every jittered value in [lo, hi] lands where the band is flat
// and equal: exactly 0 or exactly 1. The bounds already carry the margins; NaN decides nothing.
func (b *settleBounds) flat(lo, hi float32, flags uint32) (float32, bool) {
	c := float32(1)
	if b.hasMin {
		switch {
		case hi < b.minOut:
			c = 0
		case lo > b.minIn:
		default:
			return 0, false
		}
	}
	if b.hasMax && c != 0 {
		switch {
		case lo > b.maxOut:
			c = 0
		case hi < b.maxIn:
		default:
			return 0, false
		}
	}
	if flags&FlagInvert != 0 {
		c = 1 - c
	}
	return c, true
}

// Progressive settling. While the jitter fbm is summed octave by octave, the octaves not yet summed
// can move it only by a known amount: |GradNoise| ≤ √½ (unit gradients; noiseBound adds slack), so
// after the partial sum S of the first octaves the final noise n = 0.5 + (sum/norm)·√½ lies within
// nc ± hw, nc = 0.5 + (S/norm)·√½, hw = (remaining amplitude / norm)·noiseBound·√½ + noiseSlack,
// clamped to [0, MaxValue] as FBM clamps. When every v' = v + jitter·(2n − 1) over that interval lands in
// a flat part of the band, the coverage is known (exactly 0 or 1) and the remaining octaves are not
// drawn. noiseSlack (absolute, on n ∈ [0, 1]) is far above the float32 rounding of the remaining
// sum, the division and the GPU's fused multiply-adds (a few 1e-7), so the decision equals the full
// evaluation bit for bit. Only the Go twin does this (compiledRule.jitterBand): the result is the
// same either way, and on the H200 the kernel was faster without it (docs/PERFORMANCE.md).
const (
	noiseBound = 0.7072 // ≥ max |GradNoise| = √½ = 0.70710678 with float32 rounding to spare
	noiseSlack = 1e-5
)

// partialHalfWidths returns, for each k < octaves−1, the half-width hw of the final noise once
// octaves 0..k are summed (rounded up), and 1/norm of the full sum.
func partialHalfWidths(octaves uint32) (hw [MaxOctaves]float32, invNorm float32) {
	norm := 0.0
	for k := uint32(0); k < octaves; k++ {
		norm += math.Ldexp(1, -int(k))
	}
	done := 0.0
	for k := uint32(0); k+1 < octaves; k++ {
		done += math.Ldexp(1, -int(k))
		w := (norm-done)/norm*noiseBound*float64(diag) + noiseSlack
		hw[k] = math.Nextafter32(float32(w), 2)
	}
	return hw, float32(1 / norm)
}

// settledPartial is settled for a partially summed jitter fbm: nc is the noise the octaves summed
// so far give (0.5 + (S/norm)·√½, norm of all octaves), hw how far the rest can move it.
// The caller has checked that the bounds are usable and v is finite.
func (b *settleBounds) settledPartial(v, jitter, nc, hw float32, flags uint32) (float32, bool) {
	if nc != nc {
		return 0, false
	}
	// FBM clamps to [0, MaxValue], a monotone map: the clamped ends bound the clamped noise.
	nlo := clampNoise(nc - hw)
	nhi := clampNoise(nc + hw)
	m := jitter*settleMargin + abs32(v)*settleMargin
	return b.flat(v+jitter*(2*nlo-1)-m, v+jitter*(2*nhi-1)+m, flags)
}

func clampNoise(n float32) float32 {
	if n < 0 {
		return 0
	}
	if n > noise.MaxValue {
		return noise.MaxValue
	}
	return n
}
