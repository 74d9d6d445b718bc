package bake

import (
	"context"
	"errors"
	"fmt"

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
	// Warn receives each fallback as one line ("no GPU adapter …; using the Go reference").
	Warn func(msg string)
}

func (o *EvalOptions) warn(format string, a ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, a...))
	}
}

// Evaluate fills l.Geometry, l.Weights and l.Scatter from l.Stack over l.Field: on the GPU unless
// o.CPU, falling back to the Go reference (with a warning) when there is no adapter, the device
// fails, or the density grid is too large to bind. It returns the evaluator it used, in words.
// This is the one bake both `strata bake` and the editor run.
func Evaluate(ctx context.Context, l *Landscape, o EvalOptions) (backend string, err error) {
	if l.Stack == nil || l.Field == nil {
		return "", errors.New("bake: evaluate: no stack or no field")
	}
	if l.Geometry, err = NewGeometry(l.Stack, l.Field, o.Resolution); err != nil {
		return "", err
	}
	l.Weights = nil
	if !o.CPU {
		g := o.GPU
		if g == nil {
			g, err = OpenGPU(ctx)
			switch {
			case errors.Is(err, gpu.ErrNoAdapter):
				o.warn("no GPU adapter (%v); using the Go reference", err)
				g = nil
			case err != nil:
				o.warn("the GPU could not be used (%v); using the Go reference", err)
				g = nil
			}
		}
		if g != nil {
			backend = "GPU " + g.Dev.Info.String()
			err := evaluateGPU(ctx, g, l, &o)
			if o.GPU == nil {
				// Everything needed is read back: free the device before the caller writes,
				// since with a software Vulkan (lavapipe) its textures and staging buffers live
				// in this process's memory (an 8192² bake holds ~0.5 GiB there).
				g.Release()
			}
			if err != nil {
				return backend, err
			}
			return backend, nil
		}
	}
	w, err := Reference(ctx, l.Stack, l.Field, o.Options)
	if err != nil {
		return "", err
	}
	l.Weights = w
	if o.CPU {
		backend = "Go reference (--cpu)"
	} else {
		backend = "Go reference (no GPU)"
	}
	return backend, ScatterReference(ctx, l, o.Options)
}

func evaluateGPU(ctx context.Context, g *GPU, l *Landscape, o *EvalOptions) error {
	return g.Bake(ctx, l, o.Options)
}
