package session

import (
	"bytes"
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"strata/bake"
	"strata/field"
	"strata/landscape"
	"strata/stack"
)

// A stack that starts reading flow routes it at its first evaluation; a reloaded heightmap routes
// it again and marks the texels whose flow changed — here a dam across the top of a valley takes
// the water of everything above it out of the whole channel below, far from the dam's own tiles —
// and the weights after the reload are the new ground's, flow included (held to bake.Reference
// on a fresh field, which routes its own plane), the channel's far tiles changed among them.
func TestReloadRoutesFlow(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU, TileSize: 32})
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "h.f32")
	const n = 128
	g := field.NewGrid(n, n) // a valley down +Z along column 64, 4 m texels
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			g.Set(i, j, float32(100+2*math.Abs(float64(i-64))-0.8*float64(j)))
		}
	}
	writeF32(t, src, g)
	size := [2]float64{4 * n, 4 * n}
	if err := h.s.OpenHeightmap(ctx, src, HeightmapOptions{Import: field.ImportOptions{Size: [2]int{n, n}}, Size: &size}); err != nil {
		t.Fatal(err)
	}
	if h.s.land.Field.HasFlow() {
		t.Fatal("flow routed at open though no rule reads it")
	}
	st := h.s.Stack().Clone()
	wet := stack.NewLayer("wet")
	wet.Rules = []stack.Rule{{Input: stack.InputFlow, Min: stack.F(3.5), Softness: 1.5}}
	st.Layers = append(st.Layers, wet)
	reeds := stack.NewPopulation("reeds")
	reeds.Density = 0.002
	reeds.Rules = []stack.Rule{{Input: stack.InputFlow, Min: stack.F(3), Softness: 1}}
	st.Populations = append(st.Populations, reeds)
	if err := h.s.Apply("wet ground", st); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Watch(); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	h.s.pipe.passMu.Lock()
	before := h.s.pipe.full.(*cpuEval).w
	before = &landscape.Weights{W: before.W, H: before.H, Lo: bytes.Clone(before.Lo), Hi: bytes.Clone(before.Hi)}
	h.s.pipe.passMu.Unlock()
	if !h.s.land.Field.HasFlow() {
		t.Fatal("a flow rule was evaluated but the field has no flow plane")
	}
	reloads := h.count(EventReloaded)
	dam := g.Clone()
	for i := 0; i < n; i++ {
		dam.Set(i, 20, dam.At(i, 20)+40)
		dam.Set(i, 21, dam.At(i, 21)+40)
	}
	writeF32(t, src, dam)
	deadline := time.Now().Add(20 * time.Second)
	for h.count(EventReloaded) == reloads {
		if time.Now().After(deadline) {
			t.Fatal("no reload within 20 s of the heightmap changing")
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.waitFrame(h.s.Version())
	p := h.s.pipe
	p.passMu.Lock()
	defer p.passMu.Unlock()
	if ch := p.flowChanged; ch.Max.Y != n {
		t.Errorf("flow changed in %v: want down to the valley's foot (row %d)", ch, n)
	}
	f := h.s.land.Field
	fresh := &field.Field{Placement: f.Placement, Height: f.Height.Clone(), Channels: f.Channels}
	want, err := field.Flow(ctx, fresh.Height, fresh.TexelSize())
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}
	for k := range want.Data {
		if math.Float32bits(got.Data[k]) != math.Float32bits(want.Data[k]) {
			t.Fatalf("texel %d: the session's flow %v, routed afresh %v", k, got.Data[k], want.Data[k])
		}
	}
	ref, err := bake.Reference(ctx, h.s.Stack(), fresh, bake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := p.full.(*cpuEval).w; !bytes.Equal(w.Lo, ref.Lo) || !bytes.Equal(w.Hi, ref.Hi) {
		eq, worst := bake.CompareWeights(ref, w)
		t.Errorf("after the reload the weights are not the new ground's: %.4f%% equal, worst %d", 100*eq, worst)
	}
	far := 0 // weights texels that changed two tiles or more below the dam: only flow moved them
	for j := 64; j < ref.H; j++ {
		for i := 0; i < ref.W; i++ {
			if o := 4 * (j*ref.W + i); !bytes.Equal(ref.Lo[o:o+4], before.Lo[o:o+4]) || !bytes.Equal(ref.Hi[o:o+4], before.Hi[o:o+4]) {
				far++
			}
		}
	}
	if far == 0 {
		t.Error("no weights texel far below the dam changed: the test shows nothing")
	}
}

// On the GPU the field's flow plane is re-routed by the evaluator's flow kernel (the field's
// router, SetFlowRouter): after the plane is forgotten, the next routing is the kernel's bytes on
// the session's device, within the twins' 1e-4 (log10) of field.Flow; after a fall back to the Go
// reference the field routes with field.Flow again.
func TestGPUSessionRoutesFlowOnTheDevice(t *testing.T) {
	h := newHarness(t, Options{Evaluator: GPU, TileSize: 32})
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "h.f32")
	const n = 64
	g := field.NewGrid(n, n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			g.Set(i, j, float32(100+2*math.Abs(float64(i-32))-0.8*float64(j)+3*math.Sin(float64(i)*0.3)))
		}
	}
	writeF32(t, src, g)
	size := [2]float64{4 * n, 4 * n}
	if err := h.s.OpenHeightmap(ctx, src, HeightmapOptions{Import: field.ImportOptions{Size: [2]int{n, n}}, Size: &size}); err != nil {
		t.Fatal(err)
	}
	if h.s.pipe.mode != GPU {
		t.Fatalf("the session evaluates with %v", h.s.pipe.mode)
	}
	f := h.s.land.Field
	f.InvalidateFlow()
	got, err := f.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}
	k, err := h.s.dev.NewFlowKernel()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	kernel, _, err := k.Route(ctx, f.Height, f.TexelSize())
	if err != nil {
		t.Fatal(err)
	}
	want, err := field.Flow(ctx, f.Height, f.TexelSize())
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Data {
		if math.Float32bits(got.Data[i]) != math.Float32bits(kernel.Data[i]) {
			t.Fatalf("texel %d: the field's plane %v, the flow kernel's %v", i, got.Data[i], kernel.Data[i])
		}
		if d := math.Abs(float64(got.Data[i] - want.Data[i])); d > 1e-4 {
			t.Fatalf("texel %d: the field's plane %v, field.Flow %v", i, got.Data[i], want.Data[i])
		}
	}
	if !h.s.pipe.fallBack(&gpuFailure{err: errors.New("test: the device is lost")}) {
		t.Fatal("no fall back")
	}
	f.InvalidateFlow()
	after, err := f.FlowPlane()
	if err != nil {
		t.Fatal(err)
	}
	for i := range after.Data {
		if math.Float32bits(after.Data[i]) != math.Float32bits(want.Data[i]) {
			t.Fatalf("after the fall back, texel %d: %v, field.Flow %v", i, after.Data[i], want.Data[i])
		}
	}
}
