package stack

import (
	"bytes"
	"testing"
)

// A clone shares nothing with its original: changing every pointer and slice of the clone leaves
// the original's YAML byte for byte as it was.
func TestCloneIsDeep(t *testing.T) {
	s := StressStack()
	s.GradientStep = F(3)
	before, _ := Marshal(s)
	c := s.Clone()
	*c.GradientStep = 9
	c.Layers[1].Rules[0].Max = F(99)
	*c.Layers[2].Rules[2].Min = 0.9
	*c.Layers[2].Rules[2].FeatureSize = 7
	c.Layers[3].Name = "other"
	c.Populations[0].Rules[0].Layer = "rock"
	c.Layers = append(c.Layers[:1], c.Layers[2:]...)
	after, _ := Marshal(s)
	if !bytes.Equal(before, after) {
		t.Fatalf("editing the clone changed the original:\n%s", after)
	}
	if a, b := mustMarshal(t, s.Clone()), before; !bytes.Equal(a, b) {
		t.Fatalf("clone differs from the original:\n%s", a)
	}
}

// A disabled rule is a band of 1 that keeps its index: switching the rock rule off gives the
// weights of rock with no rule at all, it binds no channel, and `enabled: false` round-trips.
func TestDisabledRule(t *testing.T) {
	g := Geometry{FieldMin: [2]float32{0, 0}, InvHTexel: [2]float32{0.5, 0.5}, WTexel: [2]float32{2, 2}, GradientStep: 2}
	off := SampleDunes()
	off.Layers[1].Rules[0].Disabled = true
	none := SampleDunes()
	none.Layers[1].Rules = []Rule{{Input: InputHeight}}
	a, err := Pack(off, g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Pack(none, g)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("params word %d: disabled %#x, open height band %#x", i, a[i], b[i])
		}
	}
	m := SampleDunes()
	m.Layers[1].Rules = append(m.Layers[1].Rules, Rule{Input: InputMask, Channel: "snow", Min: F(0.5), Disabled: true})
	if ch := m.Channels(); len(ch) != 0 {
		t.Errorf("a disabled mask rule binds channels %v", ch)
	}
	y := mustMarshal(t, m)
	if !bytes.Contains(y, []byte("enabled: false")) {
		t.Fatalf("no `enabled: false` in\n%s", y)
	}
	back, err := Parse(y, "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !back.Layers[1].Rules[1].Disabled || back.Layers[1].Rules[0].Disabled {
		t.Errorf("round trip lost the switch: %+v", back.Layers[1].Rules)
	}
}

func mustMarshal(t *testing.T, s *Stack) []byte {
	t.Helper()
	b, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
