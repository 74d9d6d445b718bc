package stack

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseSpecExample: SPEC's stack.yaml example parses verbatim, with every value where SPEC
// says and defaults everywhere else.
func TestParseSpecExample(t *testing.T) {
	s, err := Load("testdata/spec_example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if errs := Errors(Validate(s)); len(errs) > 0 {
		t.Fatalf("SPEC example invalid: %v", errs)
	}
	if s.Version != 1 || s.Noise != (Noise{64, 4, 1}) || s.GradientStep == nil || *s.GradientStep != 2 {
		t.Errorf("head: %+v gradientStep %v", s, s.GradientStep)
	}
	if len(s.Layers) != 3 || s.Layers[0].Tint != (Color{0x8a, 0x7a, 0x5a}) || s.Layers[0].Strength != 1 || s.Layers[0].Tiling != 8 {
		t.Fatalf("layers: %+v", s.Layers)
	}
	if s.Layers[1].Albedo != "textures/rock_albedo.png" || s.Layers[1].Tint != DefaultTint {
		t.Errorf("rock: %+v", s.Layers[1])
	}
	snow := s.Layers[2].Rules
	if len(snow) != 5 || snow[2].Input != InputMask || !snow[2].Invert || snow[2].FieldChannel() != "mask.snowmask" ||
		snow[3].FieldChannel() != "sediment" || snow[4].FeatureSize == nil || *snow[4].FeatureSize != 200 ||
		snow[1].Min != nil || *snow[1].Max != 0.002 {
		t.Errorf("snow rules: %+v", snow)
	}
	p := s.Populations[0]
	if p.Name != "pines" || p.Density != 0.01 || p.Seed != 7 || p.Scale != [2]float64{0.8, 1.3} || p.Mesh != "tree" ||
		p.Rules[0].Input != InputLayer || p.Rules[0].Layer != "rock" {
		t.Errorf("pines: %+v", p)
	}
	if ch := s.Channels(); !reflect.DeepEqual(ch, []string{"mask.snowmask", "sediment"}) {
		t.Errorf("Channels = %v", ch)
	}
}

// roundTrip asserts parse → write → parse → write is byte- and struct-stable.
func roundTrip(t *testing.T, data []byte) []byte {
	t.Helper()
	s1, err := Parse(data, "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b1, err := Marshal(s1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Parse(b1, "b.yaml")
	if err != nil {
		t.Fatalf("re-parse: %v\n%s", err, b1)
	}
	b2, err := Marshal(s2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1, b2) {
		t.Fatalf("second write differs:\n%s\n---\n%s", b1, b2)
	}
	if !equalNaN(reflect.ValueOf(s1), reflect.ValueOf(s2)) {
		t.Fatalf("structs differ:\n%+v\n%+v", s1, s2)
	}
	return b1
}

func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		if strings.Contains(f, "unknown_key") {
			continue
		}
		data, _ := os.ReadFile(f)
		t.Run(filepath.Base(f), func(t *testing.T) { roundTrip(t, data) })
	}
	for _, s := range []*Stack{SampleDunes(), StressStack(), AspectStack(), FlowStack()} {
		b, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b, "x")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, s) {
			t.Errorf("code-built stack does not survive Marshal/Parse:\n%s", b)
		}
		roundTrip(t, b)
	}
}

// TestWriteLayout pins the written form: SPEC's layout, omitted optionals stay omitted.
func TestWriteLayout(t *testing.T) {
	b := roundTrip(t, []byte(`layers: [{name: sand, tint: "#C8A872"}, {name: rock, rules: [{input: slope, min: 18, softness: 4}]}]`))
	want := `version: 1
noise: {featureSize: 64, octaves: 4, seed: 1}
layers:
  - name: sand
    tint: "#c8a872"
  - name: rock
    rules:
      - {input: slope, min: 18, softness: 4}
`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	spec, _ := os.ReadFile("testdata/spec_example.yaml")
	out := string(roundTrip(t, spec))
	for _, frag := range []string{"gradientStep: 2\n", "      - {input: curvature, max: 0.002, softness: 0.001}\n",
		"      - {input: mask, channel: snowmask, invert: true}\n", "    scale: [0.8, 1.3]\n", "featureSize: 200}"} {
		if !strings.Contains(out, frag) {
			t.Errorf("written SPEC example lacks %q:\n%s", frag, out)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		desc, yaml, want string
	}{
		{"unknown rule key", "layers:\n  - name: a\n  - name: b\n  - name: c\n    rules:\n      - {input: height, minn: 5}\n",
			`stack: s.yaml:6: layers[2].rules[0]: unknown key "minn"`},
		{"unknown top key", "version: 1\ncolour: red\n", `stack: s.yaml:2: unknown key "colour"`},
		{"unknown noise key", "noise: {featureSize: 3, lacunarity: 2}\n", `s.yaml:1: noise: unknown key "lacunarity"`},
		{"unknown population key", "populations:\n  - {name: p, color: x}\n", `populations[0]: unknown key "color"`},
		{"null unknown key", "layers:\n  - name: a\n    strenght:\n", `layers[0]: unknown key "strenght"`},
		{"duplicate key", "layers:\n  - name: a\n    name: b\n", `layers[0]: duplicate key "name"`},
		{"number wanted", "layers:\n  - name: a\n    strength: lots\n", `s.yaml:3: layers[0].strength: want a number, got "lots"`},
		{"bool wanted", "layers:\n  - name: a\n    rules: [{invert: maybe}]\n", `layers[0].rules[0].invert: want true or false`},
		{"negative seed", "noise: {seed: -1}\n", `noise.seed: want an integer in [0, 4294967295]`},
		{"bad tint", "layers:\n  - name: a\n    tint: red\n", `layers[0].tint: "red" is not a #rrggbb colour`},
		{"layers not a list", "layers: {name: a}\n", `layers: want a list, got a mapping`},
		{"rule not a mapping", "layers:\n  - name: a\n    rules: [slope]\n", `layers[0].rules[0]: want a mapping`},
		{"scale shape", "populations:\n  - {scale: [1]}\n", `populations[0].scale: want [lo, hi]`},
		{"alias", "layers:\n  - &a {name: x}\n  - *a\n", `anchors and aliases are not supported`},
		{"syntax", "layers: [\n", `stack: s.yaml: yaml:`},
		{"top not a mapping", "- 1\n", `want a mapping, got a list`},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.yaml), "s.yaml")
		if err == nil {
			t.Errorf("%s: no error", tc.desc)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not contain %q", tc.desc, err, tc.want)
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: error does not wrap ErrSyntax", tc.desc)
		}
	}
	if _, err := Load("testdata/nonexistent.yaml"); err == nil || !strings.Contains(err.Error(), "nonexistent.yaml") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

func TestParseDefaults(t *testing.T) {
	s, err := Parse([]byte("layers:\n  - name: g\n    rules: [{min: 1, max: ~}]\npopulations: [{}]\n"), "d.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := New()
	want.Layers = []Layer{NewLayer("g")}
	want.Layers[0].Rules = []Rule{{Input: InputHeight, Min: F(1)}}
	want.Populations = []Population{NewPopulation("")}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
	empty, err := Parse(nil, "empty.yaml")
	if err != nil || len(empty.Layers) != 0 || empty.Version != 1 {
		t.Errorf("empty file: %+v, %v", empty, err)
	}
}

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stack.yaml")
	s := StressStack()
	s.GradientStep = F(1.5)
	if err := Save(s, path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("Save/Load changed the stack")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("Save left %d files", len(entries))
	}
}

func TestNonFiniteRoundTrip(t *testing.T) {
	b := roundTrip(t, []byte("layers:\n  - name: g\n  - name: r\n    strength: .inf\n    rules: [{min: -.inf, softness: -0.0}]\n"))
	s, _ := Parse(b, "x")
	if !math.IsInf(s.Layers[1].Strength, 1) || !math.IsInf(*s.Layers[1].Rules[0].Min, -1) {
		t.Errorf("non-finite values lost: %s", b)
	}
}

// FuzzParse: no input makes Parse panic, and whatever it accepts writes and re-reads to the same
// bytes.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data, "fuzz.yaml")
		if err != nil {
			return
		}
		Validate(s)
		b1, err := Marshal(s)
		if err != nil {
			t.Fatalf("accepted stack does not marshal: %v", err)
		}
		s2, err := Parse(b1, "b1.yaml")
		if err != nil {
			t.Fatalf("written stack does not parse: %v\n%s", err, b1)
		}
		b2, err := Marshal(s2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("round trip unstable (%v):\n%s\n---\n%s", err, b1, b2)
		}
		if !equalNaN(reflect.ValueOf(s), reflect.ValueOf(s2)) {
			t.Fatalf("re-read stack differs:\n%s", b1)
		}
	})
}

// equalNaN is reflect.DeepEqual with NaN equal to NaN, for stacks that carry invalid values.
func equalNaN(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalNaN(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !equalNaN(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !equalNaN(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	}
	return a.Interface() == b.Interface()
}
