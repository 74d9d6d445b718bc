package bake

import (
	"context"
	"testing"

	"strata/landscape"
	"strata/stack"
)

// ProbeWeights is the whole-field reference at that texel, byte for byte.
func TestProbeWeights(t *testing.T) {
	s, f := stack.StressStack(), StressField(80)
	g, err := landscape.NewGeometry(s, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Reference(context.Background(), s, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{0, 0}, {79, 79}, {13, 57}, {40, 0}, {66, 12}} {
		got, err := ProbeWeights(s, f, &g, p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		if want := w.Texel(p[0], p[1]); got != want {
			t.Errorf("texel %v: probe %v, reference %v", p, got, want)
		}
	}
	if _, err := ProbeWeights(s, f, &g, 80, 0); err == nil {
		t.Error("a texel outside the grid: no error")
	}
}
