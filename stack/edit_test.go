package stack

import (
	"fmt"
	"testing"
)

// Renaming, moving, duplicating and removing layers keep the stack valid: population rules follow
// a rename and go with a removed layer, names stay unique, and the eight-layer limit holds.
func TestLayerEdits(t *testing.T) {
	s := SampleDunes()
	if err := s.RenameLayer(1, "cliff"); err != nil {
		t.Fatal(err)
	}
	if got := s.Populations[0].Rules[0].Layer; got != "cliff" {
		t.Errorf("population rule reads %q after the rename", got)
	}
	if err := s.RenameLayer(0, "cliff"); err == nil {
		t.Error("two layers called cliff")
	}
	if err := s.DuplicateLayer(1); err != nil {
		t.Fatal(err)
	}
	if s.Layers[2].Name != "cliff copy" || len(s.Layers[2].Rules) != 1 {
		t.Errorf("duplicate: %+v", s.Layers[2])
	}
	s.Layers[2].Rules[0].Min = F(40)
	if *s.Layers[1].Rules[0].Min != 18 {
		t.Error("the duplicate shares its rules with the original")
	}
	if err := s.MoveLayer(2, 0); err != nil {
		t.Fatal(err)
	}
	if s.Layers[0].Name != "cliff copy" || s.Layers[1].Name != "sand" || s.Layers[2].Name != "cliff" {
		t.Errorf("after move: %s %s %s", s.Layers[0].Name, s.Layers[1].Name, s.Layers[2].Name)
	}
	if err := s.RemoveLayer(2); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Populations[0].Rules {
		if r.Input == InputLayer {
			t.Errorf("a rule still reads the removed layer: %+v", r)
		}
	}
	if ps := Errors(Validate(s)); len(ps) > 0 {
		t.Errorf("edited stack does not validate: %v", ps)
	}
	added := 0
	for len(s.Layers) < MaxLayers {
		if err := s.AddLayer(NewLayer(s.UniqueLayerName("layer"))); err != nil {
			t.Fatal(err)
		}
		added++
	}
	if err := s.AddLayer(NewLayer("ninth")); err == nil {
		t.Error("a ninth layer was added")
	}
	// The layers added are "layer", "layer 2" … "layer <added>": the next free name is numbered
	// on, and no layer has it.
	next := s.UniqueLayerName("layer")
	if added < 2 {
		t.Fatalf("%d layers added: the test wants \"layer\" and \"layer 2\" taken", added)
	}
	if want := fmt.Sprintf("layer %d", added+1); next != want {
		t.Errorf("UniqueLayerName(\"layer\") = %q, want %q", next, want)
	}
	for _, l := range s.Layers {
		if l.Name == next {
			t.Errorf("UniqueLayerName returned %q, the name of a layer", next)
		}
	}
	if got := s.UniqueLayerName("unused"); got != "unused" {
		t.Errorf("UniqueLayerName(\"unused\") = %q: a free name is returned as it is", got)
	}
}
