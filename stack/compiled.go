package stack

import (
	"fmt"

	"strata/noise"
)

// Needs says which per-texel inputs a compiled stack reads, so a field-wide evaluator computes
// height, slope and aspect (four taps), curvature (five taps) and each channel only when some rule
// uses them.
type Needs uint32

// Needs bits. NeedChan0 << slot is the bit of channel slot `slot`.
const (
	NeedHeight Needs = 1 << iota
	NeedSlope
	NeedCurvature
	NeedLayers // a population's `layer` rule: TexelInputs.Layers must hold final weights
	NeedChan0
	NeedChan1
	NeedChan2
	NeedChan3
	NeedAspect
)

// NeedChan returns the bit of channel slot i.
func NeedChan(i int) Needs { return NeedChan0 << uint(i) }

// TexelInputs is what a Compiled stack reads at one texel. The evaluator fills X, Z (world metres,
// Geometry.TexelPos) and whichever other fields Needs asks for; Compiled computes noise itself.
type TexelInputs struct {
	X, Z      float32
	Height    float32    // metres
	Slope     float32    // degrees
	Curvature float32    // 1/metres, + gully
	Aspect    float32    // degrees clockwise from +Z in [0, 360]; field.AspectFlat on flat ground
	Chan      [4]float32 // channel slots, stored units
	Layers    [8]float32 // final layer weights byte/255 (populations' `layer` rules only)
}

// compiledRule is a PackedRule with the per-octave lattice seeds precomputed. Hoisting
// PCG(PCG(seed+k)) out of the texel loop is what makes a 16-rule, 4-octave jitter stack affordable;
// the result is bit-identical to noise.FBM (a test holds it to that).
type compiledRule struct {
	PackedRule
	jit    [MaxOctaves]uint32 // PCG(PCG(Seed+k))
	val    [MaxOctaves]uint32 // PCG(PCG(NoiseSeed+k))
	inv    float32            // InvFeatureSize
	oct    uint32
	settle settleBounds
	grad   gradBounds // a slope rule's flat regions in gradient magnitudes (slope_fast.go)
	// hw[k]: how far the octaves after k can still move the jitter noise; invNorm: 1/Σ amplitudes
	// (progressive settling, settle.go).
	hw      [MaxOctaves]float32
	invNorm float32
}

// Compiled is a stack (or one population) unpacked from its own params lanes, ready for per-texel
// evaluation with no allocation and no interface call. Building it from the packed lanes, rather
// than from the Stack, guarantees the reference reads exactly the numbers the GPU reads.
type Compiled struct {
	Geometry Geometry
	Params   []uint32 // the lanes it was built from (Pack or PackPopulation output)
	// LayerCount is the stack's number of layers.
	LayerCount int
	// Population is the population index for CompilePopulation, -1 for the layer stack.
	Population int
	Density    float32 // population only: instances/m² at full coverage

	strength [8]float32
	start    [8]uint32
	count    [8]uint32
	rules    []compiledRule
	needs    Needs
	// gradSettles: some rule it evaluates is a slope rule with usable gradBounds, so a row can
	// leave its slopes to be computed when a rule needs one (Taps.WeightsRow, Taps.DensityRow).
	gradSettles bool
}

// Compile packs the layer stack for geometry g and unpacks it into a Compiled evaluator.
func Compile(s *Stack, g Geometry) (*Compiled, error) {
	p, err := Pack(s, g)
	if err != nil {
		return nil, err
	}
	c := &Compiled{Geometry: g, Params: p, LayerCount: len(s.Layers), Population: -1}
	if err := c.unpack(s.RuleCount()); err != nil {
		return nil, err
	}
	for l := 1; l < c.LayerCount; l++ { // layer 0's rules are never evaluated
		if c.strength[l] == 0 {
			continue // nor are those of a layer of strength 0: its product starts and stays at 0
		}
		for r := c.start[l]; r < c.start[l]+c.count[l]; r++ {
			c.needs |= ruleNeeds(&c.rules[r].PackedRule)
			c.gradSettles = c.gradSettles || c.rules[r].grad.usable
		}
	}
	return c, nil
}

// CompilePopulation packs population pop for geometry g and unpacks it (see PackPopulation).
func CompilePopulation(s *Stack, pop int, g Geometry) (*Compiled, error) {
	p, err := PackPopulation(s, pop, g)
	if err != nil {
		return nil, err
	}
	c := &Compiled{Geometry: g, Params: p, LayerCount: len(s.Layers), Population: pop}
	if err := c.unpack(len(s.Populations[pop].Rules)); err != nil {
		return nil, err
	}
	c.Density = c.strength[0]
	for r := range c.rules {
		c.needs |= ruleNeeds(&c.rules[r].PackedRule)
		c.gradSettles = c.gradSettles || c.rules[r].grad.usable
	}
	return c, nil
}

func (c *Compiled) unpack(nrules int) error {
	for l := 0; l < LayerLanes; l++ {
		pl, _ := UnpackLayer(c.Params, l)
		c.strength[l], c.start[l], c.count[l] = pl.Strength, pl.RuleStart, pl.RuleCount
		if int(pl.RuleStart)+int(pl.RuleCount) > nrules {
			return fmt.Errorf("stack: params layer %d names rules %d..%d of %d", l, pl.RuleStart, pl.RuleStart+pl.RuleCount, nrules)
		}
	}
	c.rules = make([]compiledRule, nrules)
	for i := range c.rules {
		pr, ok := UnpackRule(c.Params, i)
		if !ok {
			return fmt.Errorf("stack: params hold no rule %d", i)
		}
		cr := &c.rules[i]
		cr.PackedRule = pr
		cr.oct = max(1, min(pr.Octaves, MaxOctaves))
		cr.inv = pr.InvFeatureSize
		cr.settle = newSettleBounds(&cr.PackedRule)
		cr.grad = newGradBounds(&cr.PackedRule)
		cr.hw, cr.invNorm = partialHalfWidths(cr.oct)
		for k := uint32(0); k < cr.oct; k++ {
			cr.jit[k] = noise.OctaveSeed(pr.Seed, k)
			cr.val[k] = noise.OctaveSeed(pr.NoiseSeed, k)
		}
	}
	return nil
}

func ruleNeeds(r *PackedRule) Needs {
	switch r.Input {
	case 0:
		return NeedHeight
	case 1:
		return NeedSlope
	case 2:
		return NeedCurvature
	case 3, 5, laneFlow:
		return NeedChan(int(r.Slot))
	case 6:
		return NeedLayers
	case laneAspect:
		return NeedAspect
	}
	return 0
}

// Needs reports which TexelInputs fields the evaluator must fill.
func (c *Compiled) Needs() Needs { return c.needs }

// value is the rule's input at the texel (before jitter).
func (r *compiledRule) value(in *TexelInputs) float32 {
	switch r.Input {
	case 0:
		return in.Height
	case 1:
		return in.Slope
	case 2:
		return in.Curvature
	case 3, 5, laneFlow:
		return in.Chan[r.Slot&3]
	case 4:
		return fbm(in.X, in.Z, r.inv, r.oct, &r.val)
	case 6:
		return in.Layers[r.Slot&7]
	case laneAspect:
		return in.Aspect
	}
	return 0
}

// band evaluates the rule at the texel, drawing jitter noise only when the rule has jitter.
func (r *compiledRule) band(in *TexelInputs) float32 {
	v := r.value(in)
	if r.Input == laneAspect {
		// A circular band: no settling (settle.go is written for a line). Flat ground passes no
		// aspect band whatever the noise, so it draws none there (the WGSL does the same).
		if r.Jitter == 0 || !(v >= 0) {
			return AspectBand(v, &r.PackedRule, 0)
		}
		return AspectBand(v, &r.PackedRule, fbm(in.X, in.Z, r.inv, r.oct, &r.jit))
	}
	if r.Jitter == 0 {
		return Band(v, &r.PackedRule, 0)
	}
	if !r.settle.usable || !finite32(v) {
		return Band(v, &r.PackedRule, fbm(in.X, in.Z, r.inv, r.oct, &r.jit))
	}
	if c, ok := r.settle.settled(v, r.Flags); ok {
		return c
	}
	return r.jitterBand(v, in.X, in.Z)
}

// jitterBand is Band(v, r, fbm(x, z, inv, oct, jit)) for a rule whose settle bounds are usable and
// a finite v, with the fbm summed octave by octave and stopped once the octaves left cannot change
// the (then exactly 0 or 1) coverage (settle.go, progressive settling). The octaves it does sum are
// fbm's operations in fbm's order, so when it runs to the end the noise is fbm's bit for bit.
//
// It asks once, after half the octaves (rules of 2 or more): a check after every octave costs about
// what it saves at 4 octaves (its checks outnumber the octaves they skip); one check is neutral at
// 4 octaves and 9% faster at 8 (BenchmarkWeightsStress with 8 octaves, 2-core machine). The WGSL
// kernel does not do this: on the H200 both variants made the stress kernel slower (docs/PERFORMANCE.md).
func (r *compiledRule) jitterBand(v, x, z float32) float32 {
	qx := x * r.inv
	qz := z * r.inv
	var sum, norm float32
	amp := float32(1)
	for k := uint32(0); k < r.oct; k++ {
		sum += amp * noise.GradNoiseAt(qx, qz, r.jit[k])
		norm += amp
		amp *= 0.5
		qx *= 2
		qz *= 2
		if k+1 == r.oct/2 {
			if c, ok := r.settle.settledPartial(v, r.Jitter, 0.5+(sum*r.invNorm)*diag, r.hw[k], r.Flags); ok {
				return c
			}
		}
	}
	n := 0.5 + (sum/norm)*diag
	if n < 0 {
		n = 0
	}
	if n > noise.MaxValue {
		n = noise.MaxValue
	}
	return Band(v, &r.PackedRule, n)
}

// Coverage returns each layer's coverage, strength · Π band (layer 0: 0, it is never evaluated).
// A layer whose product reaches 0 stops evaluating its rules: the result is the same for finite
// inputs, and the noise it skips is most of the cost.
func (c *Compiled) Coverage(in *TexelInputs) [8]float32 {
	var cov [8]float32
	for l := 1; l < c.LayerCount && l < 8; l++ {
		cov[l] = c.product(c.strength[l], c.start[l], c.count[l], in)
	}
	return cov
}

func (c *Compiled) product(v float32, start, n uint32, in *TexelInputs) float32 {
	for r := start; r < start+n && v != 0; r++ {
		v *= c.rules[r].band(in)
	}
	return v
}

// Shares returns the eight composed shares at the texel (Compose of Coverage), evaluating only the
// layers that can still show: once nothing remains, the layers below get exactly 0.
func (c *Compiled) Shares(in *TexelInputs) [8]float32 {
	var share [8]float32
	remaining := float32(1)
	for l := min(c.LayerCount, 8) - 1; l >= 1; l-- { // the slots above the stack's layers stay 0
		if remaining == 0 {
			continue
		}
		share[l] = c.product(c.strength[l], c.start[l], c.count[l], in) * remaining
		remaining = remaining - share[l]
	}
	share[0] = remaining
	return share
}

// Weights returns the quantized weights at the texel: bytes 0–3 go to weightsLo, 4–7 to weightsHi.
func (c *Compiled) Weights(in *TexelInputs) [8]uint8 {
	return Quantize(c.Shares(in))
}

// DensityAt returns a compiled population's density at the texel: density · Π band, instances/m².
func (c *Compiled) DensityAt(in *TexelInputs) float32 {
	return c.product(c.Density, 0, uint32(len(c.rules)), in)
}

// fbm is noise.FBM with the per-octave lattice seeds (noise.OctaveSeed) taken from oct. Same
// float32 operations in the same order as noise.FBM.
func fbm(x, z, inv float32, octaves uint32, oct *[MaxOctaves]uint32) float32 {
	qx := x * inv
	qz := z * inv
	var sum, norm float32
	amp := float32(1)
	for k := uint32(0); k < octaves; k++ {
		sum += amp * noise.GradNoiseAt(qx, qz, oct[k])
		norm += amp
		amp *= 0.5
		qx *= 2
		qz *= 2
	}
	v := 0.5 + (sum/norm)*diag
	if v < 0 {
		return 0
	}
	if v > noise.MaxValue {
		return noise.MaxValue
	}
	return v
}

const diag = float32(0.70710678)
