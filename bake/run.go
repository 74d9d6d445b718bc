// Package bake turns a layer stack and a field into weights (and scatter pools): it cuts the
// weights grid into tiles, schedules dirty tiles, runs the GPU kernels or the Go reference, and
// fills a terrainData container.
package bake

import (
	"context"
	"fmt"
	"time"

	"strata/landscape"
	"strata/stack"
	"strata/terraindata"
)

// StageLoad is the stage of reading the sources (the sample's field is generated) or, for a
// bake from a container, of opening it.
const StageLoad = "load"

// Job is one bake from its sources to a container on disk: what `strata bake` runs, and `strata
// bench bake` times.
type Job struct {
	Sources landscape.Sources
	Out     string
	EvalOptions
	// StackWarning receives each warning of the stack's validation (its String says "warning:");
	// nil = none.
	StackWarning func(stack.Problem)
}

// Result is what a Job made.
type Result struct {
	Landscape *landscape.Landscape
	Backend   string // the evaluator, in words (Evaluate)
}

// Run bakes j: the GPU starts opening (unless CPU) while the sources load, the stack's warnings go
// to StackWarning, and Rebake evaluates and saves the landscape. Progress and timings follow every
// stage; a cancelled ctx stops it at the next block and leaves the container already at j.Out as
// it was.
func Run(ctx context.Context, j Job) (*Result, error) {
	o := j.EvalOptions
	if !o.CPU && o.Evaluator == nil && o.Start == nil {
		o.Start = StartGPU(ctx)
		defer o.Start.Release() // when the bake ends before Evaluate takes it
	}
	report := o.progress()
	t0 := time.Now()
	report(StageLoad, 0, 1)
	l, warnings, err := landscape.Load(j.Sources)
	if err != nil {
		return nil, err
	}
	report(StageLoad, 1, 1)
	o.Timings.Since(StageLoad, t0)
	for _, p := range warnings {
		if j.StackWarning != nil {
			j.StackWarning(p)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	// Two bakes of one path at once take turns on the lock a world's cells use: each one's
	// recovery would otherwise remove the other's save in progress.
	return Rebake(ctx, l, j.Out, RebakeOptions{EvalOptions: o, Lock: terraindata.LockPath(j.Out)})
}

// RebakeOptions are Rebake's: how to evaluate (EvalOptions: the evaluator, resolution, tiling,
// progress, timings) and the save's lock.
type RebakeOptions struct {
	EvalOptions
	// Lock is a lock file held for the whole save (WriteOptions.Lock); "" = none.
	Lock string
}

// Rebake evaluates l's stack over its field afresh at o.Resolution (Evaluate) and saves the
// landscape at path, atomically: the one orchestration of a save that evaluates, which `strata
// bake` (Run), `strata bake --from` (BakeFrom) and the editor's Save share, so what each writes
// for one stack and field is the same container. The save starts at once: the ground (the height
// payload, which the stack does not change) is compressed and read back while the stack is
// evaluated — behind the GPU's start and its kernels, or beside the Go reference — and the rest
// once the weights are in. A landscape with no stack (baked elsewhere) is saved as it is
// (landscape.WriteContext). A cancelled ctx stops it at the next block and leaves the container
// already at path as it was.
func Rebake(ctx context.Context, l *landscape.Landscape, path string, o RebakeOptions) (*Result, error) {
	wo := landscape.WriteOptions{Progress: o.Progress, Lock: o.Lock}
	if o.Timings != nil {
		wo.Timings = o.Timings // not a nil *Timings in a non-nil Timer
	}
	if l.Stack == nil {
		if err := landscape.WriteContext(ctx, path, l, wo); err != nil {
			return nil, err
		}
		return &Result{Landscape: l, Backend: "carried over (no stack)"}, nil
	}
	if l.Field == nil {
		return nil, fmt.Errorf("bake: save %s: no field", path)
	}
	geo, err := landscape.NewGeometry(l.Stack, l.Field, o.Resolution)
	if err != nil {
		return nil, err
	}
	pops := make([]int64, len(l.Stack.Populations))
	for i := range pops {
		pops[i] = int64(geo.Field.WeightsW) * int64(geo.Field.WeightsH)
	}
	w, err := landscape.BeginWrite(ctx, path, l, wo, geo.Field.WeightsW, geo.Field.WeightsH, pops)
	if err != nil {
		return nil, err
	}
	ground := make(chan error, 1)
	go func() { ground <- w.Ground() }()
	backend, err := Evaluate(ctx, l, o.EvalOptions)
	if err != nil {
		<-ground
		w.Abort()
		return nil, err
	}
	// The rest of the save starts as soon as the weights are in, beside the ground if that is
	// still being written or read back.
	rerr := w.Rest()
	switch gerr := <-ground; {
	case gerr != nil:
		return nil, w.Fail(gerr)
	case rerr != nil:
		return nil, w.Fail(rerr)
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	return &Result{Landscape: l, Backend: backend}, nil
}
