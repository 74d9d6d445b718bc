package procgen

import (
	"fmt"
	"math"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"strata/stack"
)

// paramKind is the Lua shape a param takes and the Go value it is stored as.
type paramKind int

const (
	kNumber  paramKind = iota // a finite number → float64
	kInt                      // an integer in [min, max] → float64 holding it exactly
	kString                   // a string → string
	kBool                     // a boolean → bool
	kEnum                     // one of enum → string
	kVec2                     // {a, b} → [2]float64
	kLayers                   // terrain.write's layer list → []layerSpec
	kRules                    // band rules → []stack.Rule
	kNames                    // {"a", "b"} → []string
	kFileMap                  // {name = "file", …} → map[string]string
)

// paramSpec is one param a node type takes.
type paramSpec struct {
	key  string
	kind paramKind
	enum []string
	// min, max bound kNumber and kInt values (and each kVec2 component) when lo/hi are set.
	min, max float64
	lo, hi   bool
	// minExclusive makes min exclusive (a size or feature size must be > 0).
	minExclusive bool
	doc          string
}

// layerSpec is one entry of terrain.write's layers: a bare mask name, or a table with the
// surface's look. Texture fields hold asset references.
type layerSpec struct {
	Name                 string
	Tint                 string // "" = none given
	Tiling               float64
	Albedo, Normal, Mask string
}

// kindName says what a param wants, for messages.
func (s *paramSpec) kindName() string {
	switch s.kind {
	case kNumber:
		return "a number"
	case kInt:
		return "an integer"
	case kString:
		return "a string"
	case kBool:
		return "a boolean"
	case kEnum:
		return "one of " + quoteList(s.enum)
	case kVec2:
		return "a table of two numbers, {a, b}"
	case kLayers:
		return "a list of layers (mask names or {name = …, tiling = …, albedo = …} tables)"
	case kRules:
		return "a list of rule tables ({input = \"slope\", max = 30, softness = 5})"
	case kNames:
		return "a list of strings"
	case kFileMap:
		return "a table of name = \"file\" pairs"
	}
	return "?"
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// describe names a Lua value's type for "got …" in messages.
func describe(v lua.LValue) string {
	switch v.Type() {
	case lua.LTString:
		s := string(v.(lua.LString))
		if len(s) > 40 {
			s = s[:40] + "…"
		}
		return fmt.Sprintf("the string %q", s)
	case lua.LTNumber:
		return fmt.Sprintf("the number %v", float64(v.(lua.LNumber)))
	case lua.LTNil:
		return "nil"
	}
	return "a " + v.Type().String()
}

// convert checks a Lua value against the spec and returns its Go form, or an error that says what
// was wanted and what was given.
func (s *paramSpec) convert(v lua.LValue) (any, error) {
	bad := func() (any, error) { return nil, fmt.Errorf("want %s, got %s", s.kindName(), describe(v)) }
	switch s.kind {
	case kNumber, kInt:
		n, ok := v.(lua.LNumber)
		if !ok {
			return bad()
		}
		f := float64(n)
		if err := s.checkNumber(f); err != nil {
			return nil, err
		}
		return f, nil
	case kString:
		str, ok := v.(lua.LString)
		if !ok {
			return bad()
		}
		if str == "" {
			return nil, fmt.Errorf("want a non-empty string")
		}
		return string(str), nil
	case kBool:
		b, ok := v.(lua.LBool)
		if !ok {
			return bad()
		}
		return bool(b), nil
	case kEnum:
		str, ok := v.(lua.LString)
		if !ok {
			return bad()
		}
		for _, e := range s.enum {
			if string(str) == e {
				return e, nil
			}
		}
		return nil, fmt.Errorf("unknown value %q (want %s)", string(str), quoteList(s.enum))
	case kVec2:
		t, ok := v.(*lua.LTable)
		if !ok {
			return bad()
		}
		items, err := list(t)
		if err != nil || len(items) != 2 {
			return bad()
		}
		var out [2]float64
		for i, it := range items {
			n, ok := it.(lua.LNumber)
			if !ok {
				return bad()
			}
			if err := s.checkNumber(float64(n)); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i+1, err)
			}
			out[i] = float64(n)
		}
		return out, nil
	case kLayers:
		return convertLayers(v)
	case kRules:
		return convertRules(v)
	case kNames:
		t, ok := v.(*lua.LTable)
		if !ok {
			return bad()
		}
		items, err := list(t)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(items))
		for i, it := range items {
			str, ok := it.(lua.LString)
			if !ok || str == "" {
				return nil, fmt.Errorf("[%d]: want a non-empty string, got %s", i+1, describe(it))
			}
			out[i] = string(str)
		}
		return out, nil
	case kFileMap:
		t, ok := v.(*lua.LTable)
		if !ok {
			return bad()
		}
		out := map[string]string{}
		var err error
		t.ForEach(func(k, val lua.LValue) {
			ks, ok1 := k.(lua.LString)
			vs, ok2 := val.(lua.LString)
			if err == nil && (!ok1 || !ok2 || ks == "" || vs == "") {
				err = fmt.Errorf("want name = \"file\" pairs, got %s = %s", describe(k), describe(val))
			}
			out[string(ks)] = string(vs)
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return bad()
}

// checkNumber applies the spec's range (and integrality for kInt).
func (s *paramSpec) checkNumber(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("want a finite number, got %v", f)
	}
	if s.kind == kInt && f != math.Trunc(f) {
		return fmt.Errorf("want an integer, got %v", f)
	}
	if s.lo && (f < s.min || (s.minExclusive && f == s.min)) {
		if s.minExclusive {
			return fmt.Errorf("must be > %v, got %v", s.min, f)
		}
		return fmt.Errorf("must be ≥ %v, got %v", s.min, f)
	}
	if s.hi && f > s.max {
		return fmt.Errorf("must be ≤ %v, got %v", s.max, f)
	}
	if math.Abs(f) > math.MaxFloat32 {
		return fmt.Errorf("%v is beyond float32 range", f)
	}
	// Evaluation is in float32: a positive size or feature size that rounds to 0 there (1e-300)
	// would divide by zero downstream and be blamed on another param.
	if s.lo && s.minExclusive && float32(f) <= float32(s.min) {
		return fmt.Errorf("must be > %v, got %v, which is %v as the float32 evaluation uses", s.min, f, float32(f))
	}
	return nil
}

// list returns the items of a Lua sequence {a, b, …}; keys other than 1..n are an error.
func list(t *lua.LTable) ([]lua.LValue, error) {
	n := t.Len()
	count := 0
	t.ForEach(func(lua.LValue, lua.LValue) { count++ })
	if count != n {
		return nil, fmt.Errorf("want a list {a, b, …}, got a table with %d keys other than 1..%d", count-n, n)
	}
	out := make([]lua.LValue, n)
	for i := range out {
		out[i] = t.RawGetInt(i + 1)
	}
	return out, nil
}

// fields reads a Lua table of named fields, refusing keys outside known.
func fields(t *lua.LTable, known []string) (map[string]lua.LValue, error) {
	out := map[string]lua.LValue{}
	var bad []string
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		name := string(ks)
		if !ok {
			name = describe(k)
		}
		for _, kn := range known {
			if ok && kn == name {
				out[name] = v
				return
			}
		}
		bad = append(bad, name)
	})
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, fmt.Errorf("unknown key %s (want %s)", quoteList(bad), strings.Join(known, ", "))
	}
	return out, nil
}

// layerKeys are the keys of a layer table (the seed's: a surface's look).
var layerKeys = []string{"name", "tint", "tiling", "albedo", "normal", "mask"}

func convertLayers(v lua.LValue) (any, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("want a list of layers, got %s", describe(v))
	}
	items, err := list(t)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 || len(items) > stack.MaxLayers {
		return nil, fmt.Errorf("%d layers: want 1 to %d", len(items), stack.MaxLayers)
	}
	out := make([]layerSpec, len(items))
	seen := map[string]int{}
	for i, it := range items {
		l := &out[i]
		switch it := it.(type) {
		case lua.LString:
			l.Name = string(it)
		case *lua.LTable:
			f, err := fields(it, layerKeys)
			if err != nil {
				return nil, fmt.Errorf("layers[%d]: %w", i+1, err)
			}
			for key, dst := range map[string]*string{"name": &l.Name, "tint": &l.Tint, "albedo": &l.Albedo, "normal": &l.Normal, "mask": &l.Mask} {
				if fv, ok := f[key]; ok {
					s, ok := fv.(lua.LString)
					if !ok || s == "" {
						return nil, fmt.Errorf("layers[%d].%s: want a non-empty string, got %s", i+1, key, describe(fv))
					}
					*dst = string(s)
				}
			}
			if fv, ok := f["tiling"]; ok {
				n, ok := fv.(lua.LNumber)
				if !ok || !(float64(n) > 0) || math.IsInf(float64(n), 0) {
					return nil, fmt.Errorf("layers[%d].tiling: want a number of metres > 0, got %s", i+1, describe(fv))
				}
				l.Tiling = float64(n)
			}
			if l.Tint != "" {
				if _, err := stack.ParseColor(l.Tint); err != nil {
					return nil, fmt.Errorf("layers[%d].tint: %q is not \"#rrggbb\"", i+1, l.Tint)
				}
			}
		default:
			return nil, fmt.Errorf("layers[%d]: want a mask name or a table, got %s", i+1, describe(it))
		}
		if l.Name == "" {
			return nil, fmt.Errorf("layers[%d]: no name", i+1)
		}
		if first, dup := seen[l.Name]; dup {
			return nil, fmt.Errorf("layers[%d]: %q is also layers[%d]", i+1, l.Name, first)
		}
		seen[l.Name] = i + 1
	}
	return out, nil
}

// ruleKeys are the keys of a rule table: stack.yaml's rule keys, with feather as softness's
// other name (terrain.mask calls it feather).
var ruleKeys = []string{"input", "channel", "layer", "min", "max", "softness", "feather", "jitter", "invert", "featureSize"}

func convertRules(v lua.LValue) (any, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("want a list of rule tables, got %s", describe(v))
	}
	items, err := list(t)
	if err != nil {
		return nil, err
	}
	out := make([]stack.Rule, len(items))
	for i, it := range items {
		rt, ok := it.(*lua.LTable)
		if !ok {
			return nil, fmt.Errorf("rules[%d]: want a table, got %s", i+1, describe(it))
		}
		f, err := fields(rt, ruleKeys)
		if err != nil {
			return nil, fmt.Errorf("rules[%d]: %w", i+1, err)
		}
		r := stack.Rule{Input: stack.InputHeight}
		str := func(key string, dst *string) error {
			if fv, ok := f[key]; ok {
				s, ok := fv.(lua.LString)
				if !ok || s == "" {
					return fmt.Errorf("rules[%d].%s: want a non-empty string, got %s", i+1, key, describe(fv))
				}
				*dst = string(s)
			}
			return nil
		}
		num := func(key string) (*float64, error) {
			fv, ok := f[key]
			if !ok {
				return nil, nil
			}
			n, ok := fv.(lua.LNumber)
			if !ok || math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) || math.Abs(float64(n)) > math.MaxFloat32 {
				return nil, fmt.Errorf("rules[%d].%s: want a finite number, got %s", i+1, key, describe(fv))
			}
			x := float64(n)
			return &x, nil
		}
		var input string
		if err := str("input", &input); err != nil {
			return nil, err
		}
		if input != "" {
			if _, ok := stack.Input(input).Code(); !ok {
				return nil, fmt.Errorf("rules[%d].input: unknown input %q (want height, slope, aspect, curvature, flow, mask, noise, channel, layer)", i+1, input)
			}
			r.Input = stack.Input(input)
		}
		if err := str("channel", &r.Channel); err != nil {
			return nil, err
		}
		if err := str("layer", &r.Layer); err != nil {
			return nil, err
		}
		if r.Min, err = num("min"); err != nil {
			return nil, err
		}
		if r.Max, err = num("max"); err != nil {
			return nil, err
		}
		_, hasSoft := f["softness"]
		_, hasFeather := f["feather"]
		if hasSoft && hasFeather {
			return nil, fmt.Errorf("rules[%d]: softness and feather are the same key; give one", i+1)
		}
		for _, key := range []string{"softness", "feather"} {
			if s, err := num(key); err != nil {
				return nil, err
			} else if s != nil {
				r.Softness = *s
			}
		}
		if j, err := num("jitter"); err != nil {
			return nil, err
		} else if j != nil {
			r.Jitter = *j
		}
		if r.FeatureSize, err = num("featureSize"); err != nil {
			return nil, err
		}
		if fv, ok := f["invert"]; ok {
			b, ok := fv.(lua.LBool)
			if !ok {
				return nil, fmt.Errorf("rules[%d].invert: want a boolean, got %s", i+1, describe(fv))
			}
			r.Invert = bool(b)
		}
		out[i] = r
	}
	return out, nil
}
