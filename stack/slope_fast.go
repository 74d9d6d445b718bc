package stack

import (
	"math"

	"strata/field"
)

// Slope rules settled before the arctangent. A slope is atan(m) in degrees (field.SlopeOfGrad) of
// the gradient magnitude m = sqrt(dx² + dz²) (field.GradK); the arctangent is a quarter of what a
// texel of a one-rule slope stack costs. Where the rule's band is flat — exactly 0 or exactly 1
// whatever the jitter, as settle.go finds from the value — it can equally be found from m: the
// band's edges, moved out by the jitter, the feather and margins, are carried over into tangents
// once per stack, and a texel whose m lies beyond them has the rule's coverage without its slope.
// Everywhere else (near an edge, NaN, a rule with non-finite numbers) the slope is computed and the
// rule evaluated as always, so the product is Compiled.Shares' bit for bit.
//
// Why the tangents are safe. Let T(m) = atan(m)·RadToDeg in exact arithmetic: strictly increasing.
// The computed slope S(m) = f32(f32(atan₆₄(m))·RadToDeg) is T(m) within a relative 1.3e-7 (two
// float32 roundings; Go's float64 atan is good to about 1e-16) for T(m) ≥ 1e-20, and is ≥ 0. So
//   - m < tanBelow(B) = ⌊tan(B·(1−gradMargin)/RadToDeg)⌋ gives S(m) < B, and
//   - m > tanAbove(B) = ⌈tan(B·(1+gradMargin)/RadToDeg)⌉ gives S(m) > B (+Inf included: S = 90),
// with gradMargin = 2e-5 ≫ 1.3e-7. The degree bounds B are those of settleBounds — the feather's
// ends moved out by 2·settleMargin of the edge and the feather, which covers Band's float32
// rounding — moved further out by the jitter: a jittered value is v + jitter·(2n−1), within
// |jitter|·(1+gradMargin) + 90·gradMargin of v for v ∈ [0, 90]. Past them Band's edge factor is
// exactly 0 or 1 for every n (the argument of settle.go with twice its margin).

// laneSlope is PackedRule.Input of a slope rule.
const laneSlope = 1

// laneAspect is PackedRule.Input of an aspect rule.
const laneAspect = 7

// laneFlow is PackedRule.Input of a flow rule: read from its channel slot like a channel rule.
const laneFlow = 8

// gradMargin is the relative slack of the tangent bounds (see above).
const gradMargin = 2 * settleMargin

// gradMaxAngle (radians) caps the angles whose tangent is taken: just below π/2, where the
// tangent (1255.8) is still finite; a bound at or past 89.95° is never settled from above.
const gradMaxAngle = 1.57

// gradTiny is the smallest degree bound carried over: below it float32 loses relative precision
// (a bound in (0, gradTiny) settles nothing from below and is raised to gradTiny from above).
const gradTiny = 1e-20

// gradBounds are a slope rule's flat regions in gradient magnitudes: below minOut or above
// maxOut the band gives 0, between minIn and maxIn (and past the edge it lacks) 1, before
// inversion. usable is false for a rule that is not a slope rule or has a non-finite number.
type gradBounds struct {
	minOut, minIn, maxIn, maxOut float32
	hasMin, hasMax, invert       bool
	usable                       bool
}

func newGradBounds(r *PackedRule) gradBounds {
	b := gradBounds{
		hasMin: r.Flags&FlagHasMin != 0,
		hasMax: r.Flags&FlagHasMax != 0,
		invert: r.Flags&FlagInvert != 0,
	}
	s, jit := float64(r.Softness), math.Abs(float64(r.Jitter))
	b.usable = r.Input == laneSlope && finite32(r.Softness) && finite32(r.Jitter) && s >= 0 &&
		(!b.hasMin || finite32(r.Min)) && (!b.hasMax || finite32(r.Max))
	if !b.usable {
		return b
	}
	j := jit*(1+gradMargin) + 90*gradMargin // how far a jittered value moves, and slack
	if b.hasMin {
		mn := float64(r.Min)
		e := gradMargin * (math.Abs(mn) + s)
		b.minOut = tanBelow(mn - s - e - j)
		b.minIn = tanAbove(mn + s + e + j)
	}
	if b.hasMax {
		mx := float64(r.Max)
		e := gradMargin * (math.Abs(mx) + s)
		b.maxIn = tanBelow(mx - s - e - j)
		b.maxOut = tanAbove(mx + s + e + j)
	}
	return b
}

// tanBelow is a gradient magnitude t such that every m < t has a slope below deg degrees
// (0 when there is none: every slope is ≥ 0).
func tanBelow(deg float64) float32 {
	if !(deg >= gradTiny) {
		return 0
	}
	x := math.Tan(min(deg*(1-gradMargin)/float64(field.RadToDeg), gradMaxAngle))
	t := float32(x)
	if float64(t) > x {
		t = math.Nextafter32(t, 0)
	}
	return t
}

// tanAbove is a gradient magnitude t such that every m > t has a slope above deg degrees (−1
// when every slope is: deg < 0; +Inf when none can be told).
func tanAbove(deg float64) float32 {
	if deg < 0 {
		return -1
	}
	if !(deg >= 0) { // NaN
		return float32(math.Inf(1))
	}
	a := max(deg, gradTiny) * (1 + gradMargin) / float64(field.RadToDeg)
	if a > gradMaxAngle {
		return float32(math.Inf(1))
	}
	x := math.Tan(a)
	t := float32(x)
	if float64(t) < x {
		t = math.Nextafter32(t, float32(math.Inf(1)))
	}
	return t
}

// flat returns the rule's coverage at gradient magnitude m when m lies in a flat region: exactly
// band(in) for in.Slope = field.SlopeOfGrad(m), whatever the jitter noise. NaN decides nothing.
func (b *gradBounds) flat(m float32) (float32, bool) {
	if !b.usable {
		return 0, false
	}
	c := float32(1)
	if b.hasMin {
		switch {
		case m < b.minOut:
			c = 0
		case m > b.minIn:
		default:
			return 0, false
		}
	}
	if b.hasMax && c != 0 {
		switch {
		case m > b.maxOut:
			c = 0
		case m < b.maxIn:
		default:
			return 0, false
		}
	}
	if b.invert {
		c = 1 - c
	}
	return c, true
}
