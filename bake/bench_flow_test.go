package bake

import (
	"context"
	"strings"
	"testing"
)

// The flow case of `strata bench weights` times the routing on its own and the Go reference on
// the routed plane, and prints the routing on a line of its own; the other cases print none.
func TestBenchWeightsFlow(t *testing.T) {
	sf := StressField(64)
	c := FlowBenchCase(sf)
	if !c.Stack.ReadsFlow() {
		t.Fatal("the flow case's stack reads no flow")
	}
	fig, err := BenchWeights(context.Background(), nil, c, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fig.FlowRouting <= 0 || fig.CPU <= 0 {
		t.Errorf("flow routing %v, Go reference %v: want both timed", fig.FlowRouting, fig.CPU)
	}
	if !sf.HasFlow() {
		t.Error("the field's plane was not routed before the evaluators ran")
	}
	var out strings.Builder
	fig.Print(&out, "")
	if !strings.Contains(out.String(), "flow routing") || !strings.Contains(out.String(), "weights flow, 64×64") {
		t.Errorf("printed:\n%s", out.String())
	}
	other, err := BenchWeights(context.Background(), nil, BenchCases(64)[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	other.Print(&out, "")
	if other.FlowRouting != 0 || strings.Contains(out.String(), "flow routing") {
		t.Errorf("the sample case reports a routing:\n%s", out.String())
	}
}

// With a GPU, the flow case also times the GPU flow kernel's routing and says how far its plane
// is from Go's (within the twins' 1e-4 in log10).
func TestBenchWeightsFlowGPU(t *testing.T) {
	g, err := OpenGPU(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	fig, err := BenchWeights(context.Background(), g, FlowBenchCase(StressField(64)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if fig.GPUFlowRouting <= 0 || fig.FlowWaves <= 0 || !(fig.FlowWorst <= 1e-4) {
		t.Errorf("GPU flow routing %v, %d waves, worst |Δlog10| %v", fig.GPUFlowRouting, fig.FlowWaves, fig.FlowWorst)
	}
	var out strings.Builder
	fig.Print(&out, "test")
	if !strings.Contains(out.String(), "waves, read back; worst |Δlog10| from Go") {
		t.Errorf("printed:\n%s", out.String())
	}
}
