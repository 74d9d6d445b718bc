package stack

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"strata/field"
)

// Severity separates what stops a bake (Error) from what an artist should know (Warning).
type Severity int

// Severities.
const (
	Error Severity = iota
	Warning
)

func (v Severity) String() string {
	if v == Warning {
		return "warning"
	}
	return "error"
}

// Problem is one thing wrong with a stack. Where names the element the way an artist finds it in
// the file (`layers[2] "snow" rules[1]`), Message says what is wrong and with which values.
type Problem struct {
	Severity Severity
	Where    string
	Message  string
}

// String is `WHERE: MESSAGE`, prefixed with "warning: " for warnings.
func (p Problem) String() string {
	s := p.Message
	if p.Where != "" {
		s = p.Where + ": " + s
	}
	if p.Severity == Warning {
		s = "warning: " + s
	}
	return s
}

// Errors returns the problems of Error severity.
func Errors(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if p.Severity == Error {
			out = append(out, p)
		}
	}
	return out
}

// ValidationError carries every error-severity problem of a stack; it wraps ErrInvalid.
type ValidationError struct {
	File     string // "" when the stack did not come from a file
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("stack: ")
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if len(e.Problems) == 1 {
		b.WriteString(e.Problems[0].String())
		return b.String()
	}
	fmt.Fprintf(&b, "%d problems:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.String())
	}
	return b.String()
}

func (e *ValidationError) Unwrap() error { return ErrInvalid }

// Validate reports every problem of s at once, in file order, so an artist fixes a stack in one
// pass instead of one error per save. A stack with no Error-severity problem can be packed.
func Validate(s *Stack) []Problem {
	v := &validator{s: s}
	if s == nil {
		v.errf("", "no stack")
		return v.ps
	}
	if s.Version != DefaultVersion {
		v.errf("version", "unsupported version %d (this build reads %d)", s.Version, DefaultVersion)
	}
	// > 0 as the float32 the kernels use: 1e-300 is 0 there.
	if fs := s.Noise.FeatureSize; !finite32(float32(fs)) || float32(fs) <= 0 {
		v.errf("noise.featureSize", "must be a finite number > 0, got %s", num(fs))
	}
	if o := s.Noise.Octaves; o < 1 || o > MaxOctaves {
		v.errf("noise.octaves", "must be 1..%d, got %d", MaxOctaves, o)
	}
	if g := s.GradientStep; g != nil && (!finite32(float32(*g)) || *g <= 0) {
		v.errf("gradientStep", "must be a finite number > 0 metres, got %s", num(*g))
	}
	if len(s.Layers) == 0 {
		v.errf("layers", "no layers (a stack needs at least the ground layer)")
	}
	if len(s.Layers) > MaxLayers {
		v.errf("layers", "%d layers, at most %d fit the two RGBA8 weight textures", len(s.Layers), MaxLayers)
	}
	names := map[string]int{}
	for l := range s.Layers {
		L := &s.Layers[l]
		where := fmt.Sprintf("layers[%d] %q", l, L.Name)
		if L.Name == "" {
			v.errf(where, "empty name")
		} else if first, dup := names[L.Name]; dup {
			v.errf(where, "duplicate name (also layers[%d])", first)
		} else {
			names[L.Name] = l
		}
		if !finite(L.Strength) || L.Strength < 0 || L.Strength > 1 {
			v.errf(where, "strength must be in [0, 1], got %s", num(L.Strength))
		}
		if !finite32(float32(L.Tiling)) || L.Tiling <= 0 {
			v.errf(where, "tiling must be a finite float32 > 0 metres, got %s", num(L.Tiling))
		}
		if n := len(L.Rules); n > MaxRulesPerLayer {
			v.errf(where, "%d rules, at most %d per layer (each is evaluated at every texel)", n, MaxRulesPerLayer)
			continue
		}
		if l == 0 && len(L.Rules) > 0 {
			v.warnf(where, "layer 0 takes whatever remains; its rules cannot change that")
		}
		for k := range L.Rules {
			v.rule(fmt.Sprintf("%s rules[%d]", where, k), &L.Rules[k], false)
		}
	}
	if n := len(s.Populations); n > MaxPopulations {
		v.errf("populations", "%d populations, at most %d (each is a density pass and a placement over the whole field)", n, MaxPopulations)
	}
	pnames := map[string]int{}
	for p := range s.Populations {
		P := &s.Populations[p]
		where := fmt.Sprintf("populations[%d] %q", p, P.Name)
		if P.Name != "" {
			if first, dup := pnames[P.Name]; dup {
				v.errf(where, "duplicate name (also populations[%d])", first)
			} else {
				pnames[P.Name] = p
			}
		}
		if !finite(P.Density) || P.Density < 0 || P.Density > MaxDensity {
			v.errf(where, "density must be 0 … %d instances/m², got %s", MaxDensity, num(P.Density))
		}
		lo, hi := P.Scale[0], P.Scale[1]
		if !finite32(float32(lo)) || !finite32(float32(hi)) || lo <= 0 || hi <= 0 {
			v.errf(where, "scale must be finite and > 0, got [%s, %s]", num(lo), num(hi))
		} else if lo > hi {
			v.errf(where, "scale %s > %s (write [lo, hi])", num(lo), num(hi))
		}
		if !knownMesh(P.Mesh) {
			v.errf(where, "unknown mesh %q (want %s)", P.Mesh, strings.Join(Meshes, ", "))
		}
		if n := len(P.Rules); n > MaxRulesPerPopulation {
			v.errf(where, "%d rules, at most %d per population (each is evaluated at every texel)", n, MaxRulesPerPopulation)
			continue
		}
		for k := range P.Rules {
			v.rule(fmt.Sprintf("%s rules[%d]", where, k), &P.Rules[k], true)
		}
	}
	if ch := s.Channels(); len(ch) > MaxChannels {
		if i := slices.Index(ch, field.FlowChannel); i >= 0 {
			named := slices.Delete(slices.Clone(ch), i, i+1)
			v.errf("", "%d distinct channels (%s) and flow, which takes a channel slot of its own: at most %d can be bound", len(named), strings.Join(named, ", "), MaxChannels)
		} else {
			v.errf("", "%d distinct channels (%s), at most %d can be bound", len(ch), strings.Join(ch, ", "), MaxChannels)
		}
	}
	return v.ps
}

type validator struct {
	s  *Stack
	ps []Problem
}

func (v *validator) errf(where, format string, a ...any) {
	v.ps = append(v.ps, Problem{Error, where, fmt.Sprintf(format, a...)})
}

func (v *validator) warnf(where, format string, a ...any) {
	v.ps = append(v.ps, Problem{Warning, where, fmt.Sprintf(format, a...)})
}

func (v *validator) rule(where string, r *Rule, inPopulation bool) {
	if _, ok := r.Input.Code(); !ok {
		v.errf(where, "unknown input %q (want %s)", string(r.Input), inputList())
	}
	switch {
	case r.Input.ReadsChannel():
		if r.Channel == "" {
			v.errf(where, "%s rule without a channel", r.Input)
		}
	case r.Channel != "":
		v.warnf(where, "channel %q is ignored by a %s rule", r.Channel, r.Input)
	}
	if r.Input == InputLayer {
		switch {
		case !inPopulation:
			v.errf(where, "the layer input reads final layer weights and is only for populations")
		case r.Layer == "":
			v.errf(where, "layer rule without a layer")
		case v.s.LayerIndex(r.Layer) < 0:
			v.errf(where, "unknown layer %q", r.Layer)
		}
	} else if r.Layer != "" {
		v.warnf(where, "layer %q is ignored by a %s rule", r.Layer, r.Input)
	}
	check := func(name string, x float64) bool {
		if !finite(x) || !finite32(float32(x)) {
			v.errf(where, "%s is %s (must be a finite float32)", name, num(x))
			return false
		}
		return true
	}
	okMin := r.Min == nil || check("min", *r.Min)
	okMax := r.Max == nil || check("max", *r.Max)
	if r.Input == InputFlow {
		v.flow(where, r, okMin, okMax)
	}
	if r.Input == InputAspect {
		v.aspect(where, r, okMin, okMax)
	} else if r.Min != nil && r.Max != nil && okMin && okMax && *r.Min > *r.Max {
		v.errf(where, "min %s > max %s", num(*r.Min), num(*r.Max))
	}
	if check("softness", r.Softness) && r.Softness < 0 {
		v.errf(where, "negative softness %s", num(r.Softness))
	}
	if check("jitter", r.Jitter) && r.Jitter < 0 {
		v.errf(where, "negative jitter %s", num(r.Jitter))
	}
	if r.FeatureSize != nil && check("featureSize", *r.FeatureSize) && float32(*r.FeatureSize) <= 0 {
		v.errf(where, "featureSize must be > 0 metres, got %s", num(*r.FeatureSize))
	}
}

// aspect checks an aspect rule's band: an arc of the compass in degrees, min and max in
// [0, 360], both given or both omitted (the whole compass); min > max is the arc across north.
func (v *validator) aspect(where string, r *Rule, okMin, okMax bool) {
	if (r.Min == nil) != (r.Max == nil) {
		given, missing := "min", "max"
		if r.Min == nil {
			given, missing = "max", "min"
		}
		v.errf(where, "aspect band has %s but no %s: an aspect band is an arc of the compass and needs both (min: 315, max: 45 is the north-facing quarter)", given, missing)
	}
	for _, e := range []struct {
		name string
		p    *float64
		ok   bool
	}{{"min", r.Min, okMin}, {"max", r.Max, okMax}} {
		if e.p != nil && e.ok && (*e.p < 0 || *e.p > AspectFull) {
			v.errf(where, "aspect %s %s is outside 0..360 degrees (0 = north, 90 = east; min: 315, max: 45 crosses north)", e.name, num(*e.p))
		}
	}
}

// flow checks a flow rule's edges: log10(m²), within FlowMinLog … FlowMaxLog. An edge past them
// is almost always an area written in m², and the message says how to write it.
func (v *validator) flow(where string, r *Rule, okMin, okMax bool) {
	for _, e := range []struct {
		name string
		p    *float64
		ok   bool
	}{{"min", r.Min, okMin}, {"max", r.Max, okMax}} {
		if e.p != nil && e.ok && (*e.p < FlowMinLog || *e.p > FlowMaxLog) {
			v.errf(where, "flow %s %s is outside %s … %s: a flow band is written in log10(m²) (min: 5 is 10⁵ m²)",
				e.name, num(*e.p), num(FlowMinLog), num(FlowMaxLog))
		}
	}
}

func inputList() string {
	s := make([]string, len(Inputs))
	for i, in := range Inputs {
		s[i] = string(in)
	}
	return strings.Join(s, ", ")
}

func knownMesh(m string) bool {
	for _, k := range Meshes {
		if k == m {
			return true
		}
	}
	return false
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// num formats a number the way stack.yaml writes it.
func num(x float64) string {
	switch {
	case math.IsNaN(x):
		return ".nan"
	case math.IsInf(x, 1):
		return ".inf"
	case math.IsInf(x, -1):
		return "-.inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
