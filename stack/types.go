// Package stack is the layer stack: the rules model behind stack.yaml, its validation, the params
// lanes the GPU kernels read (Pack) and the per-texel reference math those kernels are checked
// against (Band, Compose, Quantize, Compiled).
//
// The in-memory Stack holds every value resolved: Parse fills defaults in, Marshal leaves out the
// values that equal their default, so a file read and written twice is byte-stable. Values that
// have no default (min, max, a rule's featureSize, gradientStep) are pointers; nil means omitted
// and stays omitted. docs/stack.md is the schema, docs/params.md the lanes, docs/design.md the math.
package stack

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"strata/field"
)

// Limits the kernels declare. They are properties of the WGSL bindings (two RGBA8 targets, four
// channel slots), not preferences, so validation enforces them rather than clipping.
const (
	MaxLayers   = 8
	MaxChannels = 4
	MaxOctaves  = 16
)

// Limits on how much work a stack may ask for (docs/limits.md). Every rule is evaluated at every
// texel of a bake and every population is a density pass over the weights grid plus a placement,
// so a small file of many rules or populations would grow the work without bound (issue 12: a
// 1.5 MB stack of 500 000 empty rules took 2.8 GB and a minute). The numbers are well above any
// hand-made stack; validation refuses past them by name.
const (
	MaxRulesPerLayer      = 32
	MaxPopulations        = 16
	MaxRulesPerPopulation = 32
	// MaxDensity is the largest population density in instances/m²: one instance per 10 cm
	// square. Denser is grass-blade territory, not instanced meshes, and a 4 km field at that
	// density needs more sites than one population may evaluate (scatter.MaxSites).
	MaxDensity = 100
	// MaxFileBytes bounds a stack.yaml read from disk: thousands of rules' worth of YAML.
	MaxFileBytes = 1 << 20
)

// Defaults for every key that may be left out of stack.yaml (docs/stack.md lists them with units).
const (
	DefaultVersion     = 1
	DefaultFeatureSize = 64.0 // metres, the first octave's wavelength
	DefaultOctaves     = 4
	DefaultSeed        = 1
	DefaultStrength    = 1.0
	DefaultTiling      = 8.0  // metres per texture repeat
	DefaultDensity     = 0.01 // instances per m² at full coverage
	DefaultMesh        = MeshTree
)

// DefaultTint is the neutral grey a layer shows in the viewport until an artist picks a colour.
var DefaultTint = Color{0x80, 0x80, 0x80}

// DefaultScale is the population scale range: unscaled meshes.
var DefaultScale = [2]float64{1, 1}

// Stack is one landscape's surfaces: up to eight layers, bottom first, and the populations that
// grow on them. Layer 0 is the ground the stack stands on; it takes whatever the layers above leave.
type Stack struct {
	Version int
	Noise   Noise
	// GradientStep is the slope/curvature tap distance in metres; nil means the field's texel size
	// (see GradientStepFor).
	GradientStep *float64
	Layers       []Layer
	Populations  []Population
}

// Noise parameterises terrain_fbm, which every jitter and noise rule draws from. The seed and the
// rule's global index fix each rule's noise, so changing the seed reshuffles the whole stack.
type Noise struct {
	FeatureSize float64 // metres
	Octaves     int
	Seed        uint32
}

// Layer is one surface: a tint and textures for the viewport and engines, and the rules that decide
// where it covers the ground.
type Layer struct {
	Name     string
	Tint     Color
	Strength float64 // 0..1, multiplies the product of the rules
	Tiling   float64 // metres per texture repeat
	Albedo   string  // texture paths, relative to the stack file unless absolute; "" = none
	Normal   string
	Mask     string
	Rules    []Rule
}

// Input names what a rule bands. The string form is the stack.yaml spelling; Code is the lane value.
type Input string

// The inputs a rule may read. InputLayer is for populations only: it reads a layer's final weight.
const (
	InputHeight    Input = "height"
	InputSlope     Input = "slope"
	InputCurvature Input = "curvature"
	InputMask      Input = "mask"
	InputNoise     Input = "noise"
	InputChannel   Input = "channel"
	InputLayer     Input = "layer"
	// InputAspect is the compass direction the downhill faces, degrees clockwise from +Z (north)
	// seen from above; its bands wrap (min > max crosses north) and flat ground passes none
	// (docs/design.md "Aspect").
	InputAspect Input = "aspect"
	// InputFlow is the upslope contributing area, banded in log10(m²): min 5 is 10⁵ m². It is
	// read from the field's flow plane (field.Flow, routed over the whole height) through a
	// channel slot, like a stored channel (docs/design.md "Flow").
	InputFlow Input = "flow"
)

// Inputs lists every known input in lane-code order (aspect and flow came later: their codes are
// 7 and 8, after layer, so no existing lane value moved).
var Inputs = []Input{InputHeight, InputSlope, InputCurvature, InputMask, InputNoise, InputChannel, InputLayer, InputAspect, InputFlow}

// Flow bands are written in log10(m²). FlowMinLog and FlowMaxLog bound an edge: 10¹⁵ m² is more
// than the Earth's surface, and an edge past it is almost always an area written in m² (100000
// for 10⁵ m²), which validation names; 10⁻²⁰ m² is below a texel of the smallest field.
const (
	FlowMinLog = -20.0
	FlowMaxLog = 15.0
)

// AspectFull is the turn an aspect band is written in: min and max are degrees in [0, AspectFull].
const AspectFull = 360.0

// Code is the input's value in the params rule lane (docs/design.md); ok is false for an unknown input.
func (in Input) Code() (code uint32, ok bool) {
	for i, k := range Inputs {
		if k == in {
			return uint32(i), true
		}
	}
	return 0, false
}

// ReadsChannel reports whether the input reads a named field channel through a channel slot.
func (in Input) ReadsChannel() bool { return in == InputMask || in == InputChannel }

// ReadsSlot reports whether the input is read through a channel slot: a named channel, or the
// flow plane (which takes a slot of its own, field.FlowChannel).
func (in Input) ReadsSlot() bool { return in.ReadsChannel() || in == InputFlow }

// Rule is a band over one input, in that input's unit: degrees for slope, metres for height, the
// stored unit for a channel. Min and Max are nil when open-ended.
type Rule struct {
	Input    Input
	Channel  string // mask: the mask's name ("snowmask" reads mask.snowmask); channel: the stored name
	Layer    string // layer input: the layer whose final weight is read
	Min      *float64
	Max      *float64
	Softness float64 // feather half-width
	Jitter   float64 // how far noise may move the value before banding
	Invert   bool
	// Disabled switches the rule off without removing it (stack.yaml `enabled: false`): it is
	// packed as a band that is 1 everywhere and binds no channel, and it keeps its global index,
	// so switching it off and on again moves no other rule's noise.
	Disabled bool
	// FeatureSize overrides the stack's noise feature size for this rule's jitter and noise input.
	FeatureSize *float64
}

// Mesh kinds a population may place. The viewport draws a stand-in for each.
const (
	MeshTree = "tree"
	MeshRock = "rock"
	MeshBush = "bush"
)

// Meshes lists the known mesh kinds.
var Meshes = []string{MeshTree, MeshRock, MeshBush}

// Population is scattered instances: a density at full coverage, shaped by band rules over the same
// inputs as layers plus the final weight of a layer.
type Population struct {
	Name    string
	Density float64 // instances per m² at full coverage
	Seed    uint32
	Scale   [2]float64 // uniform scale range lo, hi
	Mesh    string
	Rules   []Rule
}

// New returns an empty stack with every top-level default set.
func New() *Stack {
	return &Stack{Version: DefaultVersion, Noise: DefaultNoise()}
}

// DefaultNoise is the noise block an omitted `noise:` stands for.
func DefaultNoise() Noise {
	return Noise{FeatureSize: DefaultFeatureSize, Octaves: DefaultOctaves, Seed: DefaultSeed}
}

// NewLayer returns a layer with every default set, so code that builds stacks matches what Parse
// produces for a layer written as just `- name: NAME`.
func NewLayer(name string) Layer {
	return Layer{Name: name, Tint: DefaultTint, Strength: DefaultStrength, Tiling: DefaultTiling}
}

// NewPopulation returns a population with every default set.
func NewPopulation(name string) Population {
	return Population{Name: name, Density: DefaultDensity, Scale: DefaultScale, Mesh: DefaultMesh}
}

// F returns a pointer to v, for the optional Min, Max, FeatureSize and GradientStep fields.
func F(v float64) *float64 { return &v }

// GradientStepFor resolves gradientStep: the stack's own when set, else the larger of the height
// grid's texel sizes (metres) — the same rule as field.Geometry.DefaultGradientStep — so the central
// difference spans at least one texel on both axes.
func (s *Stack) GradientStepFor(hTexel [2]float64) float64 {
	if s.GradientStep != nil {
		return *s.GradientStep
	}
	return max(hTexel[0], hTexel[1])
}

// LayerIndex returns the index of the layer named name, or -1.
func (s *Stack) LayerIndex(name string) int {
	for i := range s.Layers {
		if s.Layers[i].Name == name {
			return i
		}
	}
	return -1
}

// FieldChannel is the field channel a mask, channel or flow rule reads ("" for other inputs): mask
// rules name the mask ("snowmask" → "mask.snowmask"; a name already carrying the prefix is kept as
// is), channel rules name the channel as stored, flow rules read field.FlowChannel (the plane the
// field derives from its height).
func (r *Rule) FieldChannel() string {
	if r.Disabled {
		return ""
	}
	switch r.Input {
	case InputFlow:
		return field.FlowChannel
	case InputMask:
		if r.Channel == "" {
			return ""
		}
		if strings.HasPrefix(r.Channel, "mask.") {
			return r.Channel
		}
		return "mask." + r.Channel
	case InputChannel:
		return r.Channel
	}
	return ""
}

// Channels returns the distinct field channels the stack's rules read, sorted; index i is slot
// chan<i>. A flow rule's field.FlowChannel is among them ("@flow" sorts before every stored
// name): the flow plane is bound to a slot as a channel is. Population rules count toward the same four slots because the scatter density kernel
// binds the same chan0..chan3. Layer 0's rules count too (they are kept in the lanes, so their
// channels stay bound and adding a rule to layer 0 never renumbers slots). Unused slots are bound
// to the height tile by the GPU path and never sampled.
func (s *Stack) Channels() []string {
	seen := map[string]bool{}
	var out []string
	add := func(rules []Rule) {
		for i := range rules {
			if c := rules[i].FieldChannel(); c != "" && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	for i := range s.Layers {
		add(s.Layers[i].Rules)
	}
	for i := range s.Populations {
		add(s.Populations[i].Rules)
	}
	sort.Strings(out)
	return out
}

// ReadsSlope reports whether a rule of a layer or of a population reads slope (switched on or
// not): whether an evaluator that keeps the ground's slopes between passes has a use for them.
func (s *Stack) ReadsSlope() bool {
	for _, l := range s.Layers {
		for _, r := range l.Rules {
			if r.Input == InputSlope {
				return true
			}
		}
	}
	for _, p := range s.Populations {
		for _, r := range p.Rules {
			if r.Input == InputSlope {
				return true
			}
		}
	}
	return false
}

// ReadsFlow reports whether a rule (switched on) of a layer or a population reads flow: whether
// the field's flow plane must be routed before an evaluation.
func (s *Stack) ReadsFlow() bool {
	return slices.Contains(s.Channels(), field.FlowChannel)
}

// FlowUses lists where the rules reading flow are (as Validate names them: `layers[2] "reeds"
// rules[0]`), in file order; switched-off rules are left out.
func (s *Stack) FlowUses() []string {
	var out []string
	add := func(where string, rules []Rule) {
		for k := range rules {
			if rules[k].FieldChannel() == field.FlowChannel {
				out = append(out, fmt.Sprintf("%s rules[%d]", where, k))
			}
		}
	}
	for i := range s.Layers {
		add(fmt.Sprintf("layers[%d] %q", i, s.Layers[i].Name), s.Layers[i].Rules)
	}
	for i := range s.Populations {
		add(fmt.Sprintf("populations[%d] %q", i, s.Populations[i].Name), s.Populations[i].Rules)
	}
	return out
}

// ChannelUse is one rule that reads a stored field channel: where it is (as Validate names it) and
// the field channel it reads.
type ChannelUse struct {
	Where   string // `layers[2] "snow" rules[0]`
	Channel string // `mask.snow`
}

// ChannelUses lists every rule reading a stored field channel, in file order, so a caller whose
// field lacks one can say which rule of which file asks for it. Flow rules are not among them:
// the flow plane is derived from the height, which every field has.
func (s *Stack) ChannelUses() []ChannelUse {
	var out []ChannelUse
	add := func(where string, rules []Rule) {
		for k := range rules {
			if c := rules[k].FieldChannel(); c != "" && c != field.FlowChannel {
				out = append(out, ChannelUse{Where: fmt.Sprintf("%s rules[%d]", where, k), Channel: c})
			}
		}
	}
	for i := range s.Layers {
		add(fmt.Sprintf("layers[%d] %q", i, s.Layers[i].Name), s.Layers[i].Rules)
	}
	for i := range s.Populations {
		add(fmt.Sprintf("populations[%d] %q", i, s.Populations[i].Name), s.Populations[i].Rules)
	}
	return out
}

// ChannelSlot returns the slot (0..3) of a field channel, or -1 when no rule reads it or it falls
// beyond the four slots.
func (s *Stack) ChannelSlot(fieldChannel string) int {
	for i, c := range s.Channels() {
		if c == fieldChannel {
			if i >= MaxChannels {
				return -1
			}
			return i
		}
	}
	return -1
}

// RuleCount is the number of layer rules; population rules are numbered from it.
func (s *Stack) RuleCount() int {
	n := 0
	for i := range s.Layers {
		n += len(s.Layers[i].Rules)
	}
	return n
}

// RuleIndex is the global bottom-up index of rule k of layer l: the number that seeds its noise.
func (s *Stack) RuleIndex(l, k int) int {
	n := 0
	for i := 0; i < l && i < len(s.Layers); i++ {
		n += len(s.Layers[i].Rules)
	}
	return n + k
}

// PopulationRuleIndex is the global index of rule k of population p: population rules continue the
// count after the last layer rule, so adding a population never moves a layer's noise.
func (s *Stack) PopulationRuleIndex(p, k int) int {
	n := s.RuleCount()
	for i := 0; i < p && i < len(s.Populations); i++ {
		n += len(s.Populations[i].Rules)
	}
	return n + k
}

// Color is an sRGB tint, written "#rrggbb" in stack.yaml.
type Color [3]uint8

// String returns the "#rrggbb" form.
func (c Color) String() string { return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]) }

// ParseColor reads "#rrggbb" (either case).
func ParseColor(s string) (Color, error) {
	var c Color
	if len(s) != 7 || s[0] != '#' {
		return c, fmt.Errorf("stack: tint %q is not #rrggbb", s)
	}
	for i := 0; i < 3; i++ {
		hi, ok1 := hexDigit(s[1+2*i])
		lo, ok2 := hexDigit(s[2+2*i])
		if !ok1 || !ok2 {
			return c, fmt.Errorf("stack: tint %q is not #rrggbb", s)
		}
		c[i] = hi<<4 | lo
	}
	return c, nil
}

func hexDigit(b byte) (uint8, bool) {
	switch {
	case b >= '0' && b <= '9':
		return b - '0', true
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10, true
	case b >= 'A' && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}
