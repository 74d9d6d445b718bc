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

// The flow map is the field's flow plane as a flow rule reads it: on the default weights grid (the
// height grid) every texel is the plane's value bit for bit, and the plane is the one the field
// keeps (routed once, not again for the map).
func TestInputMapFlow(t *testing.T) {
	const n = 48
	g := &field.Grid{W: n, H: n, Data: make([]float32, n*n)}
	for j := range n {
		for i := range n {
			x := float64(i) - n/2 + 0.5
			g.Data[j*n+i] = float32(0.5*max(x, -x) + 0.2*float64(j)) // a V valley falling toward row 0
		}
	}
	f, err := field.New(field.Placement{Size: [2]float64{2 * n, n}}, g)
	if err != nil {
		t.Fatal(err)
	}
	geo, err := landscape.NewGeometry(stack.New(), f, 0)
	if err != nil {
		t.Fatal(err)
	}
	plane, err := f.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}
	m, err := InputMap(context.Background(), &geo, f, stack.InputFlow, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.W != plane.W || m.H != plane.H {
		t.Fatalf("flow map %dx%d, plane %dx%d", m.W, m.H, plane.W, plane.H)
	}
	for k := range m.Data {
		if m.Data[k] != plane.Data[k] {
			t.Fatalf("texel %d: map %v, plane %v", k, m.Data[k], plane.Data[k])
		}
	}
	if p2, _ := f.FlowPlane(); p2 != plane {
		t.Error("the map routed the flow again: the field holds another plane")
	}
}
