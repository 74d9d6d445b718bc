package stack

import (
	"errors"
	"fmt"
	"math"

	"strata/noise"
)

// The params buffer is vec4 lanes of u32 (floats by bit pattern): HeadLanes head lanes, LayerLanes
// layer lanes, then RuleLanes lanes per rule. docs/params.md describes it lane by lane; the WGSL
// struct it feeds is checked against ParamsLayout by a GPU test.
const (
	HeadLanes  = 5
	LayerLanes = 8
	RuleLanes  = 3
	LaneWords  = 4
	LaneBytes  = LaneWords * 4

	HeadBytes    = HeadLanes * LaneBytes
	LayerBytes   = LaneBytes
	RuleBytes    = RuleLanes * LaneBytes
	LayersOffset = HeadBytes                         // byte offset of layers[0]
	RulesOffset  = HeadBytes + LayerLanes*LayerBytes // byte offset of rules[0]
	RulesWord    = RulesOffset / 4                   // word index of rules[0]
)

// Rule lane flags.
const (
	FlagInvert = 1 << 0
	FlagHasMin = 1 << 1
	FlagHasMax = 1 << 2
)

// Field is one member of the params structs as WGSL lays it out: Name is "Struct.member", Offset
// and Size are bytes within that struct (Params members are offsets into the whole buffer).
type Field struct {
	Name   string
	Offset int
	Size   int
	Type   string // WGSL type
}

// ParamsLayout is the byte layout Pack writes. A GPU test parses the WGSL declarations and compares
// every member, so a Go and a WGSL struct cannot drift apart silently.
var ParamsLayout = []Field{
	{"Params.head", 0, HeadBytes, "Head"},
	{"Params.layers", LayersOffset, LayerLanes * LayerBytes, "array<Layer, 8>"},
	{"Params.rules", RulesOffset, RuleBytes, "array<Rule>"}, // Size is the element stride

	{"Head.fieldMin", 0, 8, "vec2<f32>"},
	{"Head.invHTexel", 8, 8, "vec2<f32>"},
	{"Head.wTexel", 16, 8, "vec2<f32>"},
	{"Head.gradientStep", 24, 4, "f32"},
	{"Head.layerCount", 28, 4, "u32"},
	{"Head.tileOrigin", 32, 8, "vec2<u32>"},
	{"Head.tileSize", 40, 8, "vec2<u32>"},
	{"Head.bufOrigin", 48, 8, "vec2<u32>"},
	{"Head.bufSize", 56, 8, "vec2<u32>"},
	{"Head.targetOrigin", 64, 8, "vec2<u32>"},
	{"Head.stride", 72, 4, "u32"},
	{"Head.headPad", 76, 4, "u32"},

	{"Layer.strength", 0, 4, "f32"},
	{"Layer.ruleStart", 4, 4, "u32"},
	{"Layer.ruleCount", 8, 4, "u32"},
	{"Layer.flags", 12, 4, "u32"},

	{"Rule.input", 0, 4, "u32"},
	{"Rule.slot", 4, 4, "u32"},
	{"Rule.flags", 8, 4, "u32"},
	{"Rule.seed", 12, 4, "u32"},
	{"Rule.min", 16, 4, "f32"},
	{"Rule.max", 20, 4, "f32"},
	{"Rule.softness", 24, 4, "f32"},
	{"Rule.jitter", 28, 4, "f32"},
	{"Rule.invFeatureSize", 32, 4, "f32"},
	{"Rule.octaves", 36, 4, "u32"},
	{"Rule.invTwoSoft", 40, 4, "f32"},
	{"Rule.noiseSeed", 44, 4, "u32"},
}

// Geometry is what the kernels need of the field, already in float32: the field minimum corner
// (world X, Z metres), the inverse height texel size, the weight texel size and the resolved
// gradient step. Computing the inverses once here is what lets Go and WGSL multiply by the same
// number instead of each dividing.
type Geometry struct {
	FieldMin     [2]float32
	InvHTexel    [2]float32
	WTexel       [2]float32
	GradientStep float32
	// Stride is field.Geometry.Stride: a level of the weights pyramid places texel (i, j) at the
	// full grid's texel (i·Stride, j·Stride) (params head 4 .z; 0 reads as 1).
	Stride uint32
}

// StrideOrOne is Stride with the zero value read as 1.
func (g *Geometry) StrideOrOne() uint32 {
	if g.Stride < 1 {
		return 1
	}
	return g.Stride
}

// GeometryFor builds the Geometry of a field whose minimum corner is fieldMin, whose height texels
// are hTexel metres and weight texels wTexel metres, resolving the stack's gradientStep. Code that
// has a field.Geometry should copy its FieldMin, InvHTexel and WTexel instead (field computes the
// inverse as W/size, which can differ from 1/(size/W) in the last bit).
func GeometryFor(s *Stack, fieldMin, hTexel, wTexel [2]float64) Geometry {
	return Geometry{
		FieldMin:     [2]float32{float32(fieldMin[0]), float32(fieldMin[1])},
		InvHTexel:    [2]float32{float32(1 / hTexel[0]), float32(1 / hTexel[1])},
		WTexel:       [2]float32{float32(wTexel[0]), float32(wTexel[1])},
		GradientStep: float32(s.GradientStepFor(hTexel)),
	}
}

// TexelPos is the world position of weight texel (i, j), computed exactly as the kernel does (and
// as field.Geometry.WeightPos does). The explicit float32 conversion keeps Go from fusing the
// multiply-add, which would round differently from the WGSL.
func (g *Geometry) TexelPos(i, j uint32) (x, z float32) {
	s := g.StrideOrOne()
	x = g.FieldMin[0] + float32((float32(i*s)+0.5)*g.WTexel[0])
	z = g.FieldMin[1] + float32((float32(j*s)+0.5)*g.WTexel[1])
	return x, z
}

func (g *Geometry) check() error {
	for _, v := range []float32{g.FieldMin[0], g.FieldMin[1], g.InvHTexel[0], g.InvHTexel[1], g.WTexel[0], g.WTexel[1], g.GradientStep} {
		if !finite32(v) {
			return fmt.Errorf("stack: geometry has a non-finite value: %+v", *g)
		}
	}
	if g.InvHTexel[0] <= 0 || g.InvHTexel[1] <= 0 || g.WTexel[0] <= 0 || g.WTexel[1] <= 0 || g.GradientStep <= 0 {
		return fmt.Errorf("stack: geometry texel sizes and gradient step must be > 0: %+v", *g)
	}
	return nil
}

// ErrInvalid is wrapped by every error that reports a stack failing validation.
var ErrInvalid = errors.New("invalid stack")

// Pack writes the params lanes of the layer-weights kernel: the one place the layout is produced.
// Every rule of every layer is packed at its global bottom-up index (layer 0's too: its lanes keep
// the numbering and channel slots stable, and the kernel never reads them). Head lanes 2–3 are left
// zero for PackTile. An invalid stack is refused with an error wrapping ErrInvalid.
func Pack(s *Stack, g Geometry) ([]uint32, error) {
	if err := checkPackable(s, &g); err != nil {
		return nil, err
	}
	n := s.RuleCount()
	p := make([]uint32, RulesWord+n*RuleLanes*LaneWords)
	packHead(p, s, &g)
	chans := s.Channels()
	r := 0
	for l := range s.Layers {
		L := &s.Layers[l]
		w := LayersOffset/4 + l*LaneWords
		p[w] = f32bits(L.Strength)
		p[w+1] = uint32(r)
		p[w+2] = uint32(len(L.Rules))
		for k := range L.Rules {
			packRule(p, r, r, s, &L.Rules[k], chans)
			r++
		}
	}
	return p, nil
}

// PackPopulation writes the params lanes of the scatter density kernel for population pop. The head
// is as in Pack (layerCount is the stack's, for `layer` rules). Layer lane 0 carries the population:
// x density f32 (instances/m²), y ruleStart u32 (always 0), z ruleCount u32, w flags u32 (0); layer
// lanes 1–7 are zero. Rule lane k holds the population's rule k, seeded by its global index (after
// every layer rule). A `layer` rule's slot is the index of the layer it names.
func PackPopulation(s *Stack, pop int, g Geometry) ([]uint32, error) {
	if err := checkPackable(s, &g); err != nil {
		return nil, err
	}
	if pop < 0 || pop >= len(s.Populations) {
		return nil, fmt.Errorf("stack: population %d out of range (stack has %d)", pop, len(s.Populations))
	}
	P := &s.Populations[pop]
	p := make([]uint32, RulesWord+len(P.Rules)*RuleLanes*LaneWords)
	packHead(p, s, &g)
	w := LayersOffset / 4
	p[w] = f32bits(P.Density)
	p[w+1] = 0
	p[w+2] = uint32(len(P.Rules))
	chans := s.Channels()
	for k := range P.Rules {
		packRule(p, k, s.PopulationRuleIndex(pop, k), s, &P.Rules[k], chans)
	}
	return p, nil
}

// PackTile patches head lanes 2–3 for one tile: the weight-texel rectangle the dispatch writes
// (origin and size in weight texels) and the height buffer's placement in the grid (origin and size
// in height texels, apron included). Nothing else in the lanes depends on the tile.
func PackTile(p []uint32, tileOrigin, tileSize, bufOrigin, bufSize [2]uint32) {
	if len(p) < HeadLanes*LaneWords {
		return
	}
	copy(p[8:12], []uint32{tileOrigin[0], tileOrigin[1], tileSize[0], tileSize[1]})
	copy(p[12:16], []uint32{bufOrigin[0], bufOrigin[1], bufSize[0], bufSize[1]})
}

// PackTarget patches head lane 4: the global weight texel at which the bound target (the weights
// textures, the density grid) starts. A kernel writes global texel g at g − targetOrigin of its
// target, so a bake can evaluate a field band by band into a band-sized target with the bytes of
// the whole field's run. Pack leaves it (0, 0): a whole-field target.
func PackTarget(p []uint32, targetOrigin [2]uint32) {
	if len(p) < HeadLanes*LaneWords {
		return
	}
	p[16], p[17] = targetOrigin[0], targetOrigin[1]
}

func checkPackable(s *Stack, g *Geometry) error {
	if s == nil {
		return fmt.Errorf("stack: nil stack: %w", ErrInvalid)
	}
	if errs := Errors(Validate(s)); len(errs) > 0 {
		return &ValidationError{Problems: errs}
	}
	return g.check()
}

func packHead(p []uint32, s *Stack, g *Geometry) {
	p[0] = math.Float32bits(g.FieldMin[0])
	p[1] = math.Float32bits(g.FieldMin[1])
	p[2] = math.Float32bits(g.InvHTexel[0])
	p[3] = math.Float32bits(g.InvHTexel[1])
	p[4] = math.Float32bits(g.WTexel[0])
	p[5] = math.Float32bits(g.WTexel[1])
	p[6] = math.Float32bits(g.GradientStep)
	p[7] = uint32(len(s.Layers))
	p[18] = g.StrideOrOne()
}

// packRule writes rule ru at rule lane slot lane, seeded by its global index gi. A disabled rule
// is packed as an open band over height with no jitter (1 everywhere, nothing sampled but the
// height), keeping its index and seed.
func packRule(p []uint32, lane, gi int, s *Stack, ru *Rule, chans []string) {
	if ru.Disabled {
		off := Rule{Input: InputHeight, FeatureSize: ru.FeatureSize}
		ru = &off
	}
	w := RulesWord + lane*RuleLanes*LaneWords
	code, _ := ru.Input.Code()
	var slot uint32
	switch {
	case ru.Input.ReadsSlot():
		fc := ru.FieldChannel()
		for i, c := range chans {
			if c == fc {
				slot = uint32(i)
			}
		}
	case ru.Input == InputLayer:
		if i := s.LayerIndex(ru.Layer); i >= 0 {
			slot = uint32(i)
		}
	}
	var flags uint32
	if ru.Invert {
		flags |= FlagInvert
	}
	var lo, hi float32
	if ru.Min != nil {
		flags |= FlagHasMin
		lo = float32(*ru.Min)
	}
	if ru.Max != nil {
		flags |= FlagHasMax
		hi = float32(*ru.Max)
	}
	soft := float32(ru.Softness)
	var inv float32
	if soft != 0 {
		inv = 1 / (2 * soft)
		if !finite32(inv) { // a feather too thin for float32 is a hard step
			soft, inv = 0, 0
		}
	}
	fs := s.Noise.FeatureSize
	if ru.FeatureSize != nil {
		fs = *ru.FeatureSize
	}
	seed := noise.RuleSeed(s.Noise.Seed, uint32(gi))
	p[w+0] = code
	p[w+1] = slot
	p[w+2] = flags
	p[w+3] = seed
	p[w+4] = math.Float32bits(lo)
	p[w+5] = math.Float32bits(hi)
	p[w+6] = math.Float32bits(soft)
	p[w+7] = f32bits(ru.Jitter)
	p[w+8] = math.Float32bits(1 / float32(fs)) // exactly noise.FBM's own inverse
	p[w+9] = uint32(s.Noise.Octaves)
	p[w+10] = math.Float32bits(inv)
	p[w+11] = noise.NoiseInputSeed(seed)
}

// PackedRule is one rule as the kernel sees it: the three rule lanes decoded. Band reads it.
type PackedRule struct {
	Input    uint32 // lane code: 0 height … 6 layer
	Slot     uint32
	Flags    uint32
	Seed     uint32
	Min      float32
	Max      float32
	Softness float32
	Jitter   float32
	// InvFeatureSize is 1/featureSize (metres⁻¹), computed on the CPU so the kernel never divides:
	// a WGSL division may be 2.5 ULP off, which moves far lattice points (noise.FBMInv).
	InvFeatureSize float32
	Octaves        uint32
	InvTwoSoft     float32
	NoiseSeed      uint32
}

// UnpackRule decodes rule lane i of packed params p (ok is false when p has no such rule).
func UnpackRule(p []uint32, i int) (r PackedRule, ok bool) {
	w := RulesWord + i*RuleLanes*LaneWords
	if i < 0 || w+RuleLanes*LaneWords > len(p) {
		return r, false
	}
	f := func(k int) float32 { return math.Float32frombits(p[w+k]) }
	return PackedRule{
		Input: p[w], Slot: p[w+1], Flags: p[w+2], Seed: p[w+3],
		Min: f(4), Max: f(5), Softness: f(6), Jitter: f(7),
		InvFeatureSize: f(8), Octaves: p[w+9], InvTwoSoft: f(10), NoiseSeed: p[w+11],
	}, true
}

// PackedLayer is one layer lane decoded (for a population's params: lane 0 with Strength = density).
type PackedLayer struct {
	Strength  float32
	RuleStart uint32
	RuleCount uint32
	Flags     uint32
}

// UnpackLayer decodes layer lane l of packed params p.
func UnpackLayer(p []uint32, l int) (PackedLayer, bool) {
	w := LayersOffset/4 + l*LaneWords
	if l < 0 || l >= LayerLanes || w+LaneWords > len(p) {
		return PackedLayer{}, false
	}
	return PackedLayer{math.Float32frombits(p[w]), p[w+1], p[w+2], p[w+3]}, true
}

// DrawsNoise reports whether packed layer params p make the kernel draw noise: a rule of layers
// 1.. with a jitter or a noise input (layer 0's rules are never evaluated). It is the test the
// WGSL makes before filling its lattice cache; the GPU host code runs the plain kernel when it is
// false, since for such a stack the cache is pure cost.
func DrawsNoise(p []uint32) bool {
	if len(p) < RulesWord {
		return false
	}
	noiseCode, _ := InputNoise.Code()
	for l := 1; l < min(int(p[7]), LayerLanes); l++ {
		pl, _ := UnpackLayer(p, l)
		for r := pl.RuleStart; r < pl.RuleStart+pl.RuleCount; r++ {
			pr, ok := UnpackRule(p, int(r))
			if ok && (pr.Jitter != 0 || pr.Input == noiseCode) {
				return true
			}
		}
	}
	return false
}

func f32bits(v float64) uint32 { return math.Float32bits(float32(v)) }

func finite32(v float32) bool {
	return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
}
