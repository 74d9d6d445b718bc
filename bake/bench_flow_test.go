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
