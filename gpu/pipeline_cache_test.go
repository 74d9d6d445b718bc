package gpu

import (
	"context"
	"testing"
)

// TestPipelinesShared: two loads of one shader, entry and layout give one pipeline, freed with
// its last user; another layout or entry is another pipeline; Prewarm's pipelines are the ones a
// kernel made afterwards gets, and they outlive the kernel while the warmup holds them.
func TestPipelinesShared(t *testing.T) {
	// A device of its own: the package's shared one may hold other tests' kernels.
	d, err := Open(context.Background(), Options{Label: "strata gpu test: shared pipelines"})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer d.Release()
	if n := d.SharedPipelines(); n != 0 {
		t.Fatalf("a fresh device shares %d pipelines", n)
	}
	a, err := d.LoadComputePipeline("terrain_scatter_place", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.LoadComputePipeline("terrain_scatter_place", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.LoadComputePipeline("terrain_scatter_place", "keep", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a == c || d.SharedPipelines() != 2 {
		t.Fatalf("loads: a %p b %p c %p, %d shared; want a == b != c, 2 shared", a, b, c, d.SharedPipelines())
	}
	a.Release()
	if b.Pipeline == nil || d.SharedPipelines() != 2 {
		t.Fatalf("one user's release freed the pipeline another holds")
	}
	b.Release()
	c.Release()
	if d.SharedPipelines() != 0 || b.Pipeline != nil {
		t.Fatalf("after the last release %d pipelines are shared (pipeline freed: %v)", d.SharedPipelines(), b.Pipeline == nil)
	}

	w := d.Prewarm()
	w.Wait()
	if w.Built != 7 || d.SharedPipelines() != 7 {
		t.Fatalf("Prewarm built %d pipelines, %d shared; want 7", w.Built, d.SharedPipelines())
	}
	k, err := d.NewWeightsKernel()
	if err != nil {
		t.Fatal(err)
	}
	sk, err := d.NewScatterKernel()
	if err != nil {
		t.Fatal(err)
	}
	if n := d.SharedPipelines(); n != 7 {
		t.Errorf("kernels made after Prewarm built their own pipelines: %d shared, want 7", n)
	}
	if k.pipes[variantPlain] != w.pipes[0] || sk.densPipe != w.pipes[2] {
		t.Error("a kernel made after Prewarm does not hold the prewarmed pipeline")
	}
	k.Release()
	sk.Release()
	if d.SharedPipelines() != 7 {
		t.Errorf("the kernels' release freed pipelines the warmup holds: %d shared", d.SharedPipelines())
	}
	w.Release()
	w.Release()
	if n := d.SharedPipelines(); n != 0 {
		t.Errorf("after the warmup's release %d pipelines are shared", n)
	}
}
