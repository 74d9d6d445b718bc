package bake

import (
	"context"
	"strings"
	"testing"

	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// InputMap refuses what it cannot map, naming the input or channel, and stops on a cancelled
// context.
func TestInputMapErrors(t *testing.T) {
	g := &field.Grid{W: 8, H: 8, Data: make([]float32, 64)}
	f, err := field.New(field.Placement{Size: [2]float64{8, 8}}, g)
	if err != nil {
		t.Fatal(err)
	}
	geo, err := landscape.NewGeometry(stack.New(), f, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		in      stack.Input
		channel string
		want    string
	}{
		{stack.InputNoise, "", `"noise"`},
		{stack.InputChannel, "flow", `"flow"`},
	} {
		if _, err := InputMap(ctx, &geo, f, c.in, c.channel, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error naming %s", c.in, c.channel, err, c.want)
		}
	}
	if _, err := InputMap(ctx, &geo, nil, stack.InputSlope, "", nil); err == nil {
		t.Error("no field: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := InputMap(cctx, &geo, f, stack.InputSlope, "", nil); err == nil {
		t.Error("cancelled: no error")
	}
	m, err := InputMap(ctx, &geo, f, stack.InputAspect, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range m.Data {
		if v != field.AspectFlat {
			t.Fatalf("a flat field's aspect %v, want AspectFlat", v)
		}
	}
}
