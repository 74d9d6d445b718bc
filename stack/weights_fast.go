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
//   - Shares is computed a layer at a time along the row (sharesRow), each texel's operations
//     Shares' in Shares' order, without a call and an 8-share array per texel.
//   - Quantize is a function of the shares' values alone (each is clamped, NaN and ±0 to 0,
//     before anything else), share[0]'s value is a function of shares 1…n−1 (what they left) and
//     slots from n on are 0; so a texel whose shares 1…n−1 equal (==) the texel before's has its
//     bytes. Neighbours often do: wherever every band is settled at 0 or 1, the shares are the
//     same 0s and 1s — most of a field under hard or lightly feathered rules.
//   - quantizeFast is Quantize with the floor of v ∈ [0, 255] taken by truncation (equal there:
//     clamp01 has already mapped NaN and negatives to 0), not through float64 math.Floor.

var nan32 = float32(math.NaN())

// WeightsRow writes into out[k] the weights of weights texels (i0+k, j), k < len(out): what
// FillRow and then Compiled.Weights give, bit for bit. ins is scratch for the inputs, as long as
// out (shorter, new scratch is made); its contents are undefined afterwards.
func (tp *Taps) WeightsRow(j, i0 int, ins []TexelInputs, out [][8]uint8) {
	ins = scratchInputs(ins, len(out))
	f := &tp.fast
	f.grow(len(out))
	var grads []float32
	if cols, ok := f.columns(i0, len(out)); ok {
		if tp.needS && tp.slopes == nil && tp.c.gradSettles {
			grads = f.grads[:len(out)]
		}
		tp.fillRowFast(j, i0, cols, ins, grads)
	} else {
		tp.fillRowGeneral(j, i0, ins)
	}
	n := tp.sharesRow(ins, grads)
	rem := f.rem[:len(out)]
	for k := range out {
		if k > 0 && f.sameShares(k, n) {
			out[k] = out[k-1]
			continue
		}
		sh := [8]float32{rem[k]}
		for l := 1; l < n; l++ {
			sh[l] = f.share[l][k]
		}
		out[k] = quantizeFast(&sh)
	}
}

// DensityRow writes into out[k] the density of weights texels (i0+k, j) for a compiled
// population: what FillRow and then Compiled.DensityAt give, bit for bit, a slope computed only
// when a rule needs it (as WeightsRow). When the population reads layers, ins[k].Layers must hold
// texel k's final layer weights (FillRow leaves Layers alone); the rest of ins is scratch. ins is
// as long as out (shorter, it is replaced by new scratch, whose layers are 0).
func (tp *Taps) DensityRow(j, i0 int, ins []TexelInputs, out []float32) {
	ins = scratchInputs(ins, len(out))
	c, f := tp.c, &tp.fast
	var grads []float32
	if cols, ok := f.columns(i0, len(out)); ok {
		if tp.needS && tp.slopes == nil && c.gradSettles {
			f.grow(len(out))
			grads = f.grads[:len(out)]
		}
		tp.fillRowFast(j, i0, cols, ins, grads)
	} else {
		tp.fillRowGeneral(j, i0, ins)
	}
	n := uint32(len(c.rules))
	for k := range out {
		if grads != nil {
			known := false
			out[k] = c.productGrad(c.Density, 0, n, &ins[k], grads[k], &known)
		} else {
			out[k] = c.DensityAt(&ins[k])
		}
	}
}

// scratchInputs is ins cut to n texels, or new ones when ins is shorter.
func scratchInputs(ins []TexelInputs, n int) []TexelInputs {
	if len(ins) < n {
		return make([]TexelInputs, n)
	}
	return ins[:n]
}

// grow makes the row scratch hold n texels.
func (f *fastTaps) grow(n int) {
	if len(f.rem) >= n {
		return
	}
	f.grads, f.rem, f.known = make([]float32, n), make([]float32, n), make([]bool, n)
	for l := range f.share {
		f.share[l] = make([]float32, n)
	}
}

// sharesRow is Shares for every texel of ins, a layer at a time along the row: share l of texel
// k in f.share[l][k] for 1 ≤ l < n, share 0 in f.rem[k]. The operations on each texel are
// Shares' in Shares' order. With grads, texel k's slope is still to be computed from grads[k]
// (productGrad). It returns n, the number of layers (slots from n on are 0).
func (tp *Taps) sharesRow(ins []TexelInputs, grads []float32) (n int) {
	c, f := tp.c, &tp.fast
	rem, known := f.rem[:len(ins)], f.known[:len(ins)]
	for k := range rem {
		rem[k] = 1
	}
	clear(known)
	n = min(c.LayerCount, 8)
	for l := n - 1; l >= 1; l-- {
		sh := f.share[l][:len(ins)]
		st, start, cnt := c.strength[l], c.start[l], c.count[l]
		for k := range sh {
			r := rem[k]
			if r == 0 {
				sh[k] = 0
				continue
			}
			var v float32
			if grads != nil {
				v = c.productGrad(st, start, cnt, &ins[k], grads[k], &known[k])
			} else {
				v = c.product(st, start, cnt, &ins[k])
			}
			s := v * r
			sh[k] = s
			rem[k] = r - s
		}
	}
	return n
}

// sameShares reports whether texel k's shares 1 … n−1 equal (==) texel k−1's, which makes their
// Quantize equal (see the top of this file).
func (f *fastTaps) sameShares(k, n int) bool {
	for l := 1; l < n; l++ {
		if f.share[l][k] != f.share[l][k-1] {
			return false
		}
	}
	return true
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
	return largestRemainder(q, r, sum)
}
