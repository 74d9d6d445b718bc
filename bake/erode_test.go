package bake

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"strata/erode"
	"strata/field"

	"github.com/cogentcore/webgpu/wgpu"
)

func erodeTestGround(w, h int) *field.Grid {
	g := field.NewGrid(w, h)
	for j := range h {
		for i := range w {
			x, z := float64(i), float64(j)
			g.Set(i, j, float32(40-0.2*x+5*math.Sin(x*0.23)*math.Cos(z*0.19)+3*math.Sin(z*0.31+x*0.07)))
		}
	}
	return g
}

// The evaluators erode as chosen: ModeCPU with erode.Run (the same bytes), ModeGPU with the
// erosion kernels on any device, lavapipe included (the bytes of gpu.ErodeKernel, not Go's: they
// differ within the twins' tolerance, tested in package gpu), and ModeAuto on a software adapter
// with the Go reference, saying why.
func TestEvaluatorErode(t *testing.T) {
	ctx := context.Background()
	g := erodeTestGround(48, 40)
	p, _ := erode.Preset("default")
	p.Iterations = 30
	o := erode.Options{Params: p, Seed: 5}
	want, err := erode.Run(ctx, g, [2]float64{2, 2}, o)
	if err != nil {
		t.Fatal(err)
	}
	cpu, _ := NewEvaluator(ctx, Choice{Mode: ModeCPU})
	r, backend, err := cpu.Erode(ctx, g, [2]float64{2, 2}, o)
	if err != nil || !slices.Equal(r.Height.Data, want.Height.Data) || !strings.Contains(backend, "Go reference") {
		t.Fatalf("ModeCPU: %v, backend %q, same bytes as erode.Run: %v", err, backend, err == nil && slices.Equal(r.Height.Data, want.Height.Data))
	}

	gev, err := NewEvaluator(ctx, Choice{Mode: ModeGPU})
	if err != nil {
		t.Fatal(err)
	}
	defer gev.Release()
	rg, backend, err := gev.Erode(ctx, g, [2]float64{2, 2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(backend, "GPU ") {
		t.Errorf("ModeGPU eroded with %q", backend)
	}
	k, err := gev.(*GPUEvaluator).GPU().Dev.NewErodeKernel()
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	direct, err := k.Run(ctx, g, [2]float64{2, 2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rg.Height.Data, direct.Height.Data) || !slices.Equal(rg.Flow.Data, direct.Flow.Data) {
		t.Error("ModeGPU's erosion is not the erosion kernel's")
	}
	worst := 0.0
	for i := range want.Height.Data {
		worst = max(worst, math.Abs(float64(rg.Height.Data[i]-want.Height.Data[i])))
	}
	if worst > 1e-3 {
		t.Errorf("ModeGPU's height is %.3g m from the Go reference's", worst)
	}

	auto, _ := NewEvaluator(ctx, Choice{})
	defer auto.Release()
	ra, backend, err := auto.Erode(ctx, g, [2]float64{2, 2}, o)
	if err != nil {
		t.Fatal(err)
	}
	if gev.(*GPUEvaluator).GPU().Dev.Info.Type == wgpu.AdapterTypeCPU {
		if !slices.Equal(ra.Height.Data, want.Height.Data) || !strings.Contains(backend, "faster than the software adapter") {
			t.Errorf("ModeAuto on a software adapter eroded with %q (Go's bytes: %v)", backend, slices.Equal(ra.Height.Data, want.Height.Data))
		}
	} else if !strings.HasPrefix(backend, "GPU ") {
		t.Errorf("ModeAuto on a GPU eroded with %q", backend)
	}
}
