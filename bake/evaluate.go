package bake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"strata/landscape"
)

// EvalOptions control Evaluate: the tiling, progress and warnings of Options, the evaluator (one
// handed in, or the choice of one made for the call) and the timings.
type EvalOptions struct {
	Options
	// Evaluator is an evaluator to borrow (the editor's, a procgen run's); nil makes one for this
	// call from CPU and Start (NewEvaluator: ModeCPU, or ModeAuto warning through Warn) and frees
	// it before returning, so a big bake does not hold the device while it writes.
	Evaluator Evaluator
	// CPU forces the Go reference for an evaluator made for this call.
	CPU bool
	// Start is a GPU being opened in the background (StartGPU) for an evaluator made for this
	// call; Evaluate owns what it opens and frees it before returning.
	Start *GPUStart
	// Timings, when not nil, accumulates the wall time of each phase (`strata bench bake`).
	Timings *Timings
}

// choice is the Choice of an evaluator made for one call.
func (o *EvalOptions) choice() Choice {
	c := Choice{Start: o.Start, Warn: o.Warn}
	if o.CPU {
		c.Mode = ModeCPU
	}
	return c
}

// evaluator is o.Evaluator, or one made for the call (own: the caller releases it).
func (o *EvalOptions) evaluator(ctx context.Context) (ev Evaluator, own bool, err error) {
	if o.Evaluator != nil {
		return o.Evaluator, false, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("bake: %w", err)
	}
	ev, err = NewEvaluator(ctx, o.choice())
	return ev, err == nil, err
}

// Evaluate fills l.Geometry, l.Weights and l.Scatter from l.Stack over l.Field with
// o.Evaluator, or with an evaluator made for the call: the GPU unless o.CPU, falling back to the
// Go reference (with a warning) when there is no adapter or the device fails. It returns the
// evaluator it used, in words. This is the one bake both `strata bake` and the editor run. On the
// GPU, a field of any size is evaluated band by band within the device's limits (GPU.Bake); one
// the device truly cannot hold is refused before any work, by name.
func Evaluate(ctx context.Context, l *landscape.Landscape, o EvalOptions) (backend string, err error) {
	if l.Stack == nil || l.Field == nil {
		return "", errors.New("bake: evaluate: no stack or no field")
	}
	if l.Geometry, err = landscape.NewGeometry(l.Stack, l.Field, o.Resolution); err != nil {
		return "", err
	}
	if err := checkMemory(l); err != nil {
		return "", err
	}
	l.Weights = nil
	ev := o.Evaluator
	opt := o.Options
	if ev != nil {
		if opt.BandBytes == 0 {
			opt.BandBytes = -1 // a borrowed GPU's Target is the whole field when it fits
		}
		return ev.Landscape(ctx, l, opt, o.Timings)
	}
	ev = o.openEvaluator(ctx)
	// Everything needed is read back: free the device while the caller writes (its teardown
	// takes a while on a real GPU), since with a software Vulkan (lavapipe) its textures and
	// staging buffers live in this process's memory.
	defer func() { go ev.Release() }()
	return ev.Landscape(ctx, l, opt, o.Timings)
}

// openEvaluator is the evaluator of one Evaluate, chosen now (the device stage, timed).
func (o *EvalOptions) openEvaluator(ctx context.Context) Evaluator {
	c := o.choice()
	if c.Mode == ModeCPU {
		return &ReferenceEvaluator{name: "Go reference (--cpu)"}
	}
	report := o.progress()
	t0 := time.Now()
	report(StageDevice, 0, 1)
	ev := c.auto(ctx)
	waited := time.Since(t0)
	o.Timings.Add(StageDevice, waited)
	if o.Start != nil {
		o.Timings.Note("gpu start: %.1f ms in the background (%s), %.1f ms of it waited for", ms(o.Start.took), o.Start.parts, ms(waited))
	}
	report(StageDevice, 1, 1)
	return ev
}
