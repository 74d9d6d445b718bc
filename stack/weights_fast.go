package stack

import (
	"math"

	"strata/field"
)

// The fast path of the weights over a row of texels. Taps.WeightsRow gives FillRow then
// Compiled.Weights for every texel, bit for bit; Shares and Quantize stay the definition.
//
//   - The inputs come from FillRow's fast path (taps_fast.go), and a stack with slope rules that
//     can settle from the gradient (slope_fast.go) computes a texel's slope only when a rule
//     asks for it: productGrad multiplies by exactly what band would return.
//   - Quantize is a function of the shares' values alone (each is clamped, NaN and ±0 to 0, before
//     anything else), and share[0] is one of shares 1…7 and slots past the stack's layers are
//     0; so a texel whose shares 1…n−1 equal (==) the texel before's has its bytes. Neighbours
//     often do: wherever every band is settled at 0 or 1, the shares are the same 0s and 1s —
//     most of a field under hard or lightly feathered rules.
//   - quantizeFast is Quantize with the floor of v ∈ [0, 255] taken by truncation (equal there:
//     clamp01 has already mapped NaN and negatives to 0), not through float64 math.Floor.

var nan32 = float32(math.NaN())

// WeightsRow writes into out[k] the weights of weights texels (i0+k, j), k < len(out): what
// FillRow and then Compiled.Weights give, bit for bit. ins, at least as long as out, is scratch
// for the inputs (its contents are undefined afterwards).
func (tp *Taps) WeightsRow(j, i0 int, ins []TexelInputs, out [][8]uint8) {
	ins = ins[:len(out)]
	c := tp.c
	var grads []float32
	if cols, ok := tp.fast.columns(i0, len(out)); ok {
		if tp.needS && tp.slopes == nil && c.gradSettles {
			if cap(tp.fast.grads) < len(out) {
				tp.fast.grads = make([]float32, len(out))
			}
			grads = tp.fast.grads[:len(out)]
		}
		tp.fillRowFast(j, i0, cols, ins, grads)
	} else {
		tp.fillRowGeneral(j, i0, ins)
	}
	n := min(c.LayerCount, 8)
	var last [8]float32
	var lastQ [8]uint8
	have := false
	for k := range ins {
		var sh [8]float32
		if grads != nil {
			sh = c.sharesGrad(&ins[k], grads[k])
		} else {
			sh = c.Shares(&ins[k])
		}
		if !have || !sameShares(&sh, &last, n) {
			last, lastQ, have = sh, quantizeFast(&sh), true
		}
		out[k] = lastQ
	}
}

// sameShares reports a[l] == b[l] for l in 1 … n−1, which makes Quantize(a) == Quantize(b) when
// both are shares of a stack of n layers (see the top of this file).
func sameShares(a, b *[8]float32, n int) bool {
	for l := 1; l < n; l++ {
		if a[l] != b[l] {
			return false
		}
	}
	return true
}

// sharesGrad is Shares for a texel whose slope is still to be computed from its gradient
// magnitude m; it is computed into in.Slope when a rule first needs it.
func (c *Compiled) sharesGrad(in *TexelInputs, m float32) [8]float32 {
	var share [8]float32
	remaining := float32(1)
	known := false
	for l := min(c.LayerCount, 8) - 1; l >= 1; l-- {
		if remaining == 0 {
			continue
		}
		share[l] = c.productGrad(c.strength[l], c.start[l], c.count[l], in, m, &known) * remaining
		remaining = remaining - share[l]
	}
	share[0] = remaining
	return share
}

// productGrad is product for a texel whose slope is still to be computed from m (*known says
// whether in.Slope holds it): a slope rule whose band is flat at m multiplies by that band's
// value, exactly what band returns.
func (c *Compiled) productGrad(v float32, start, n uint32, in *TexelInputs, m float32, known *bool) float32 {
	for r := start; r < start+n && v != 0; r++ {
		cr := &c.rules[r]
		if cr.Input == laneSlope && !*known {
			if b, ok := cr.grad.flat(m); ok {
				v *= b
				continue
			}
			in.Slope, *known = field.SlopeOfGrad(m), true
		}
		v *= cr.band(in)
	}
	return v
}

// quantizeFast is Quantize(*share), bit for bit (see the top of this file).
func quantizeFast(share *[8]float32) [8]uint8 {
	var q [8]int32
	var r [8]float32
	var sum int32
	for k := range share {
		v := clamp01(share[k]) * 255
		f := int32(v) // v ∈ [0, 255]: truncation is the floor
		q[k] = f
		r[k] = v - float32(f)
		sum += f
	}
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
