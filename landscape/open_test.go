package landscape_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
	"strata/terraindata"
)

// A landscape written and opened again is the same landscape: field, holes, channels, stack,
// weights, populations and guid — what the editor needs to carry on where it stopped.
func TestOpenRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := stack.SampleDunes()
	s.Layers = append(s.Layers, stack.NewLayer("snow"))
	s.Layers[len(s.Layers)-1].Rules = []stack.Rule{{Input: stack.InputMask, Channel: "snow", Min: stack.F(0.5)}}
	f := field.SampleDunesSized(96)
	mask := field.NewGrid(96, 96)
	for i := range mask.Data {
		mask.Data[i] = float32(i%96) / 95
	}
	if err := f.AddChannel("mask.snow", mask); err != nil {
		t.Fatal(err)
	}
	l := &landscape.Landscape{Stack: s, Field: f, Holes: make([]bool, 96*96)}
	l.Holes[5*96+7] = true
	if _, err := bake.Evaluate(ctx, l, bake.EvalOptions{CPU: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.terrainData")
	if err := landscape.Write(path, l); err != nil {
		t.Fatal(err)
	}
	if l.GUID == "" {
		t.Fatal("Write left the landscape without a guid")
	}
	o, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if o.GUID != l.GUID {
		t.Errorf("guid %q, wrote %q", o.GUID, l.GUID)
	}
	if !reflect.DeepEqual(o.Field.Height.Data, f.Height.Data) || o.Field.Placement != f.Placement {
		t.Error("height or placement changed")
	}
	if !reflect.DeepEqual(o.Holes, l.Holes) {
		t.Error("holes changed")
	}
	if g := o.Field.Channels["mask.snow"]; g == nil || !reflect.DeepEqual(g.Data, mask.Data) {
		t.Error("channel mask.snow did not come back")
	}
	a, _ := stack.Marshal(s)
	b, _ := stack.Marshal(o.Stack)
	if !bytes.Equal(a, b) {
		t.Errorf("stack changed:\n%s\nwant\n%s", b, a)
	}
	if !bytes.Equal(o.Weights.Lo, l.Weights.Lo) || !bytes.Equal(o.Weights.Hi, l.Weights.Hi) {
		t.Error("weights changed")
	}
	if len(o.Scatter) != len(l.Scatter) || o.Scatter[0].Count != l.Scatter[0].Count || o.Scatter[0].Spacing != l.Scatter[0].Spacing {
		t.Errorf("populations %+v, wrote %+v", o.Scatter, l.Scatter)
	}
	// Saving the opened landscape under another name keeps its identity (editor Save As).
	other := filepath.Join(t.TempDir(), "moved.terrainData")
	if err := landscape.Write(other, o); err != nil {
		t.Fatal(err)
	}
	if c, err := terraindata.Open(other); err != nil || c.GUID() != l.GUID {
		t.Errorf("Save As: guid %v (%v), want %q", c, err, l.GUID)
	}
}

// A container baked elsewhere (no stack.yaml) opens with its weights and saves again unchanged.
func TestOpenBakedContainer(t *testing.T) {
	ctx := context.Background()
	l := &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunesSized(64)}
	if _, err := bake.Evaluate(ctx, l, bake.EvalOptions{CPU: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "b.terrainData")
	if err := landscape.Write(path, l); err != nil {
		t.Fatal(err)
	}
	// Strip the stack, as a container from another tool would come.
	c, err := terraindata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Manifest()
	m.Stack = ""
	enc, _ := m.Encode()
	if err := os.WriteFile(filepath.Join(path, terraindata.ManifestFile), enc, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if o.Stack != nil || o.Baked == nil || len(o.Baked.Layers) != len(l.Stack.Layers) {
		t.Fatalf("opened stack %v baked %+v", o.Stack, o.Baked)
	}
	if !bytes.Equal(o.Weights.Lo, l.Weights.Lo) {
		t.Error("weights changed")
	}
	again := filepath.Join(t.TempDir(), "again.terrainData")
	if err := landscape.Write(again, o); err != nil {
		t.Fatal(err)
	}
	if ps := terraindata.Validate(again); len(ps) > 0 {
		t.Errorf("re-saved baked container is invalid: %v", ps)
	}
}
