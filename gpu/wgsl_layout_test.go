package gpu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"strata/shaders"
	"strata/stack"
)

// wgslMember is a struct member with its WGSL layout (WGSL spec "Memory Layout").
type wgslMember struct {
	name, typ    string
	offset, size int // size: for a runtime-sized array, the element stride
}

type wgslStruct struct {
	members     []wgslMember
	align, size int
}

var structRE = regexp.MustCompile(`(?s)struct\s+(\w+)\s*\{(.*?)\}`)

// parseWGSLStructs lays out every struct declared in src, in declaration order.
func parseWGSLStructs(src string) (map[string]*wgslStruct, error) {
	out := map[string]*wgslStruct{}
	for _, m := range structRE.FindAllStringSubmatch(src, -1) {
		s := &wgslStruct{align: 1}
		off := 0
		for _, decl := range splitTopLevel(stripComments(m[2])) {
			decl = strings.TrimSpace(decl)
			if decl == "" {
				continue
			}
			name, typ, ok := strings.Cut(decl, ":")
			if !ok {
				return nil, fmt.Errorf("struct %s: cannot parse member %q", m[1], decl)
			}
			name, typ = strings.TrimSpace(name), strings.Join(strings.Fields(typ), "")
			al, sz, err := wgslAlignSize(typ, out)
			if err != nil {
				return nil, fmt.Errorf("struct %s.%s: %w", m[1], name, err)
			}
			off = roundUp(off, al)
			s.members = append(s.members, wgslMember{name, typ, off, sz})
			off += sz
			s.align = max(s.align, al)
		}
		s.size = roundUp(off, s.align)
		out[m[1]] = s
	}
	return out, nil
}

func stripComments(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if k := strings.Index(l, "//"); k >= 0 {
			lines[i] = l[:k]
		}
	}
	return strings.Join(lines, "\n")
}

// splitTopLevel splits struct members at commas outside <...>.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

var arrayRE = regexp.MustCompile(`^array<(\w+(?:<\w+>)?)(?:,(\d+))?>$`)

// wgslAlignSize returns AlignOf and SizeOf of a type (a runtime array's size is its stride).
func wgslAlignSize(typ string, structs map[string]*wgslStruct) (int, int, error) {
	switch typ {
	case "f32", "u32", "i32":
		return 4, 4, nil
	case "vec2<f32>", "vec2<u32>", "vec2<i32>":
		return 8, 8, nil
	case "vec3<f32>", "vec3<u32>", "vec3<i32>":
		return 16, 12, nil
	case "vec4<f32>", "vec4<u32>", "vec4<i32>":
		return 16, 16, nil
	}
	if m := arrayRE.FindStringSubmatch(typ); m != nil {
		al, sz, err := wgslAlignSize(m[1], structs)
		if err != nil {
			return 0, 0, err
		}
		stride := roundUp(sz, al)
		if m[2] == "" {
			return al, stride, nil
		}
		n, _ := strconv.Atoi(m[2])
		return al, n * stride, nil
	}
	if s, ok := structs[typ]; ok {
		return s.align, s.size, nil
	}
	return 0, 0, fmt.Errorf("unknown type %s", typ)
}

func roundUp(v, a int) int { return (v + a - 1) / a * a }

// laneName maps the WGSL struct names (LayerLane, RuleLane) and the Go layout's names (Layer,
// Rule) onto one spelling, so the comparison is about offsets and types, not naming.
func laneName(s string) string {
	return strings.NewReplacer("LayerLane", "Layer", "RuleLane", "Rule", " ", "").Replace(s)
}

// TestParamsLayoutMatchesWGSL reads the Params, Head, LayerLane and RuleLane structs of
// stack_rules.wgsl (which both rule kernels include) and checks every member's offset, size and type against the layout
// stack.Pack writes (stack.ParamsLayout), and that nothing is declared on one side only.
func TestParamsLayoutMatchesWGSL(t *testing.T) {
	src, err := shaders.Raw("stack_rules")
	if err != nil {
		t.Fatal(err)
	}
	structs, err := parseWGSLStructs(src)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]wgslMember{}
	for _, sn := range []string{"Params", "Head", "LayerLane", "RuleLane"} {
		s, ok := structs[sn]
		if !ok {
			t.Fatalf("struct %s not declared in the shader", sn)
		}
		for _, m := range s.members {
			got[laneName(sn)+"."+m.name] = m
		}
	}
	if structs["Head"].size != stack.HeadBytes || structs["LayerLane"].size != stack.LayerBytes || structs["RuleLane"].size != stack.RuleBytes {
		t.Errorf("struct sizes Head %d LayerLane %d RuleLane %d, Go %d %d %d", structs["Head"].size,
			structs["LayerLane"].size, structs["RuleLane"].size, stack.HeadBytes, stack.LayerBytes, stack.RuleBytes)
	}
	seen := map[string]bool{}
	for _, f := range stack.ParamsLayout {
		seen[f.Name] = true
		m, ok := got[f.Name]
		if !ok {
			t.Errorf("%s (Go offset %d) is not in the WGSL structs", f.Name, f.Offset)
			continue
		}
		if m.offset != f.Offset || m.size != f.Size || laneName(m.typ) != laneName(f.Type) {
			t.Errorf("%s: WGSL %s @%d size %d, Go %s @%d size %d", f.Name, m.typ, m.offset, m.size, f.Type, f.Offset, f.Size)
		}
	}
	for name, m := range got {
		if !seen[name] {
			t.Errorf("WGSL member %s (%s @%d) has no Go packing", name, m.typ, m.offset)
		}
	}
}

// The parser itself, on a case with padding the Params structs do not exercise.
func TestWGSLLayoutParser(t *testing.T) {
	s, err := parseWGSLStructs(`struct A { x: f32, v: vec3<f32>, y: u32, w: vec2<f32>, }
struct B { a: A, b: array<A, 2>, c: f32, r: array<vec4<f32>>, }`)
	if err != nil {
		t.Fatal(err)
	}
	a, b := s["A"], s["B"]
	wantA := []int{0, 16, 28, 32}
	for i, m := range a.members {
		if m.offset != wantA[i] {
			t.Errorf("A.%s @%d, want %d", m.name, m.offset, wantA[i])
		}
	}
	if a.size != 48 || a.align != 16 {
		t.Errorf("A size %d align %d, want 48 16", a.size, a.align)
	}
	wantB := []int{0, 48, 144, 160}
	for i, m := range b.members {
		if m.offset != wantB[i] {
			t.Errorf("B.%s @%d, want %d", m.name, m.offset, wantB[i])
		}
	}
}
