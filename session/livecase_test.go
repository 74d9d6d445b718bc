package session

import (
	"strings"
	"testing"

	"strata/landscape"
	"strata/stack"
)

// The "aspect" live case is the sample with a layer reading aspect on top: its stack validates,
// compiles to one that needs the aspect input (the plain sample's does not), keeps the sample's
// layers and drag; the names `--case` takes all resolve, and an unknown one is refused naming
// them.
func TestLiveCaseAspect(t *testing.T) {
	needs := func(c LiveCase) stack.Needs {
		t.Helper()
		l := c.Landscape()
		if problems := stack.Validate(l.Stack); len(problems) > 0 {
			t.Fatalf("%s: %v", c.Name, problems)
		}
		geo, err := landscape.NewGeometry(l.Stack, l.Field, 0)
		if err != nil {
			t.Fatal(err)
		}
		comp, err := stack.Compile(l.Stack, geo.Stack)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		return comp.Needs()
	}
	sample, err := LiveCaseNamed("sample", 256)
	if err != nil {
		t.Fatal(err)
	}
	aspect, err := LiveCaseNamed("aspect", 256)
	if err != nil {
		t.Fatal(err)
	}
	if needs(sample)&stack.NeedAspect != 0 {
		t.Error("the plain sample's stack reads aspect: the aspect case would measure nothing more")
	}
	if needs(aspect)&stack.NeedAspect == 0 {
		t.Error("the aspect case's stack does not read aspect")
	}
	base, with := sample.Landscape().Stack, aspect.Landscape().Stack
	if len(with.Layers) != len(base.Layers)+1 {
		t.Fatalf("aspect case: %d layers, want the sample's %d and one more", len(with.Layers), len(base.Layers))
	}
	for i, l := range base.Layers {
		if with.Layers[i].Name != l.Name {
			t.Errorf("layer %d: %q, want the sample's %q", i, with.Layers[i].Name, l.Name)
		}
	}
	top := with.Layers[len(with.Layers)-1]
	if len(top.Rules) != 1 || top.Rules[0].Input != stack.InputAspect {
		t.Errorf("the added layer's rules %+v: want one aspect band", top.Rules)
	}
	// The drag moves the rock layer's minimum slope as the sample's does.
	d0, d1 := aspect.Drag(with, 0, 10), aspect.Drag(with, 9, 10)
	r := with.LayerIndex("rock")
	if *d0.Layers[r].Rules[0].Min != 10 || *d1.Layers[r].Rules[0].Min != 30 {
		t.Errorf("drag: rock min %v → %v, want 10 → 30", *d0.Layers[r].Rules[0].Min, *d1.Layers[r].Rules[0].Min)
	}
	for _, name := range LiveCaseNames {
		if c, err := LiveCaseNamed(name, 64); err != nil || c.Name != name {
			t.Errorf("LiveCaseNamed(%q): %q, %v", name, c.Name, err)
		}
	}
	if _, err := LiveCaseNamed("dunes", 64); err == nil || !strings.Contains(err.Error(), "sample, stress16, aspect") {
		t.Errorf("unknown case: err %v, want the names listed", err)
	}
}
