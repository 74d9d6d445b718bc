package bake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"strata/gpu"
)

// EvalOptions control Evaluate: the tiling and progress of Options, which evaluator, and where
// warnings go.
type EvalOptions struct {
	Options
	// CPU forces the Go reference.
	CPU bool
	// GPU is an evaluator to borrow (the editor keeps one open); nil opens one for this call and
	// frees it before returning, so a big bake does not hold the device while it writes.
	GPU *GPU
	// Start is a GPU being opened in the background (StartGPU), used when GPU is nil; Evaluate
	// owns what it opens and frees it before returning, as for a GPU it opens itself.
	Start *GPUStart
	// Warn receives each fallback as one line ("no GPU adapter …; using the Go reference").
	Warn func(msg string)
	// Timings, when not nil, accumulates the wall time of each phase (`strata bench bake`).
	Timings *Timings
}

func (o *EvalOptions) warn(format string, a ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, a...))
	}
}

// GPUStart is a GPU opening in the background: the device, the weights kernel and the scatter
// kernel. Opening a device and compiling its kernels takes a few hundred milliseconds; a bake
// starts it before loading its sources, which take as long, so the device start costs no wall
// time (the Go reference opens nothing, and a GPU bake that paid for it lost to it at small sizes).
type GPUStart struct {
	done     chan struct{}
	g        *GPU
	err      error
	took     time.Duration
	parts    string // what took the time: "device 120 ms, weights kernel 40 ms, …"
	mu       sync.Mutex
	consumed bool
}

// StartGPU begins opening the GPU. Hand it to Evaluate through EvalOptions.Start, or Release it.
func StartGPU(ctx context.Context) *GPUStart {
	s := &GPUStart{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t0 := time.Now()
		defer func() { s.took = time.Since(t0) }()
		d, err := gpu.Open(ctx, gpu.Options{Label: "strata bake"})
		tOpen := time.Since(t0)
		if err != nil {
			s.err = fmt.Errorf("bake: %w", err)
			return
		}
		// The scatter kernel is compiled beside the weights kernel rather than at the first
		// population, and one small read back runs the device's first submission and mapping
		// here, while the sources load, not in the bake's evaluation.
		var sk *gpu.ScatterKernel
		var tScatter, tFirst time.Duration
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			t := time.Now()
			if k, err := d.NewScatterKernel(); err == nil {
				sk = k
			}
			tScatter = time.Since(t)
		}()
		go func() {
			defer wg.Done()
			t := time.Now()
			if wt, err := d.NewWeightsTarget(1, 1); err == nil {
				wt.ReadWeights()
				wt.Release()
			}
			tFirst = time.Since(t)
		}()
		t := time.Now()
		g, err := NewGPU(d)
		tWeights := time.Since(t)
		wg.Wait()
		s.parts = fmt.Sprintf("device %.1f ms, then side by side: weights kernel %.1f ms, scatter kernel %.1f ms, first read back %.1f ms",
			ms(tOpen), ms(tWeights), ms(tScatter), ms(tFirst))
		if err != nil {
			sk.Release()
			d.Release()
			s.err = err
			return
		}
		g.ownDev, g.scatter = true, sk
		s.g = g
	}()
	return s
}

// wait returns the opened GPU (or why not) and hands its ownership to the caller.
func (s *GPUStart) wait() (*GPU, error) {
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.consumed {
		return nil, errors.New("bake: this GPU start was already used")
	}
	s.consumed = true
	return s.g, s.err
}

// Release frees the GPU unless Evaluate took it. Safe on nil and twice; it waits for the open.
func (s *GPUStart) Release() {
	if s == nil {
		return
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.consumed {
		s.consumed = true
		s.g.Release()
	}
}

// OpenGPUOr is the GPU for a caller that falls back to the Go reference: one on dev (NewGPU) or,
// with dev nil, on the best adapter (OpenGPU). When there is none, or it cannot be used, warn (when
// not nil) hears why, as FallbackWarning says it, and OpenGPUOr returns nil.
func OpenGPUOr(ctx context.Context, dev *gpu.Device, warn func(string)) *GPU {
	var g *GPU
	var err error
	if dev != nil {
		g, err = NewGPU(dev)
	} else {
		g, err = OpenGPU(ctx)
	}
	return usableGPU(g, err, warn)
}

// usableGPU is g when err is nil; otherwise it frees what was opened, warns why and returns nil.
func usableGPU(g *GPU, err error, warn func(string)) *GPU {
	if err == nil {
		return g
	}
	g.Release()
	if warn != nil {
		warn(FallbackWarning(err))
	}
	return nil
}

// FallbackWarning is the line a GPU error is reported with by a caller that goes on with the Go
// reference: "no GPU adapter (…)" when the machine has none, the error itself for work larger
// than the device holds (gpu.ErrTooLarge), "the GPU could not be used (…)" otherwise; each ends
// "; using the Go reference".
func FallbackWarning(err error) string {
	switch {
	case errors.Is(err, gpu.ErrNoAdapter):
		return fmt.Sprintf("no GPU adapter (%v); using the Go reference", err)
	case errors.Is(err, gpu.ErrTooLarge):
		return fmt.Sprintf("%v; using the Go reference", err)
	}
	return fmt.Sprintf("the GPU could not be used (%v); using the Go reference", err)
}

// WeightsKernel is g's compiled weights kernel, for a caller that dispatches tiles of its own on
// g.Dev (package world's windows of the sources). It stays g's: Release frees it.
func (g *GPU) WeightsKernel() *gpu.WeightsKernel { return g.weights }

// ScatterKernel is g's density and placement kernel, compiled on first use (StartGPU compiles it
// ahead), for a caller that dispatches tiles of its own on g.Dev while g bakes nothing else. It
// stays g's: Release frees it.
func (g *GPU) ScatterKernel() (*gpu.ScatterKernel, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.scatterKernel()
}

// Evaluate fills l.Geometry, l.Weights and l.Scatter from l.Stack over l.Field: on the GPU unless
// o.CPU, falling back to the Go reference (with a warning) when there is no adapter or the device
// fails. It returns the evaluator it used, in words. This is the one bake both `strata bake` and
// the editor run. On the GPU, a field of any size is evaluated band by band within the device's
// limits (GPU.Bake); one the device truly cannot hold is refused before any work, by name.
func Evaluate(ctx context.Context, l *Landscape, o EvalOptions) (backend string, err error) {
	if l.Stack == nil || l.Field == nil {
		return "", errors.New("bake: evaluate: no stack or no field")
	}
	if l.Geometry, err = NewGeometry(l.Stack, l.Field, o.Resolution); err != nil {
		return "", err
	}
	if err := l.checkMemory(); err != nil {
		return "", err
	}
	l.Weights = nil
	report := o.progress()
	if !o.CPU {
		g := o.GPU
		if g == nil {
			t0 := time.Now()
			report(StageDevice, 0, 1)
			if o.Start != nil {
				g, err = o.Start.wait()
			} else {
				g, err = OpenGPU(ctx)
			}
			waited := time.Since(t0)
			o.Timings.Add(StageDevice, waited)
			if o.Start != nil {
				o.Timings.Note("gpu start: %.1f ms in the background (%s), %.1f ms of it waited for", ms(o.Start.took), o.Start.parts, ms(waited))
			}
			g = usableGPU(g, err, o.Warn)
			report(StageDevice, 1, 1)
		}
		if g != nil {
			backend = "GPU " + g.Dev.Info.String()
			opt := o.Options
			if o.GPU != nil && opt.BandBytes == 0 {
				opt.BandBytes = -1 // a borrowed GPU's Target is the whole field when it fits
			}
			err := g.bake(ctx, l, opt, true, o.Timings)
			if o.GPU == nil {
				// Everything needed is read back: free the device while the caller writes (its
				// teardown takes a while on a real GPU), since with a software Vulkan (lavapipe)
				// its textures and staging buffers live in this process's memory.
				go g.Release()
			}
			return backend, err
		}
	}
	t0 := time.Now()
	w, err := Reference(ctx, l.Stack, l.Field, o.Options)
	o.Timings.Add(StageEvaluate, time.Since(t0))
	if err != nil {
		return "", err
	}
	l.Weights = w
	if o.CPU {
		backend = "Go reference (--cpu)"
	} else {
		backend = "Go reference (no GPU)"
	}
	t0 = time.Now()
	err = ScatterReference(ctx, l, o.Options)
	o.Timings.Add(StageScatter, time.Since(t0))
	return backend, err
}
