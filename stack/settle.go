package stack

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
		usable: r.Jitter > 0 && finite32(r.Jitter) && finite32(r.Softness),
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
	lo, hi := v-m, v+m
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
