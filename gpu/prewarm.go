package gpu

import (
	"sync"

	"github.com/cogentcore/webgpu/wgpu"
)

// Warmup is the live loop's pipelines built ahead of need (Device.Prewarm) and held until
// Release.
type Warmup struct {
	done  chan struct{}
	once  sync.Once
	pipes []*ComputePipeline
	// Built counts the pipelines built (tests); valid once Wait returns.
	Built int
}

// Prewarm builds, in the background, the pipelines an editor's live loop needs first — the weights
// kernel in both its variants, a population's density, placement and keep passes, the sculpt
// dab — and holds them
// until Release. The device shares pipelines (LoadComputePipeline), so a landscape opened while
// its file is still being read finds them built: a driver compiles the weights kernel's noise
// variant in about half a second the first time (518 ms of a 16384² open's "choose the
// evaluator" on a fresh H200, 50 ms with the driver's cache warm). A pipeline that fails to build
// is left out: the kernel that needs it builds it again and reports the error then. A software
// adapter gains nothing by it (its pipelines are compiled on the cores the open needs), so callers
// leave it out there.
func (d *Device) Prewarm() *Warmup {
	w := &Warmup{done: make(chan struct{})}
	specs := []struct {
		name, entry string
		layout      []wgpu.BindGroupLayoutEntry
	}{
		{weightsShaders[variantPlain], "main", weightsLayout()},
		{weightsShaders[variantNoise], "main", weightsLayout()},
		{"terrain_scatter_density", "main", densityLayout()},
		{"terrain_scatter_place", "main", nil},
		{"terrain_scatter_place", "keep", nil},
		{"sculpt", "gather", nil},
		{"sculpt", "dab", nil},
	}
	go func() {
		defer close(w.done)
		for _, s := range specs {
			if p, err := d.LoadComputePipeline(s.name, s.entry, s.layout); err == nil {
				w.pipes = append(w.pipes, p)
			}
		}
		w.Built = len(w.pipes)
	}()
	return w
}

// Wait returns once the pipelines are built (or failed). Safe on nil.
func (w *Warmup) Wait() {
	if w != nil {
		<-w.done
	}
}

// Release waits for the build and lets go of the pipelines (each is freed with its last user).
// Safe on nil and twice.
func (w *Warmup) Release() {
	if w == nil {
		return
	}
	w.once.Do(func() {
		<-w.done
		for _, p := range w.pipes {
			p.Release()
		}
		w.pipes = nil
	})
}
