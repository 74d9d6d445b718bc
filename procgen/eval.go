package procgen

import (
	"context"
	"fmt"
	"strings"

	"strata/bake"
	"strata/field"
)

// evaluator runs the nodes the writes need, in dependency order, each once, and writes.
type evaluator struct {
	ctx     context.Context
	opt     *Options
	res     *resolver
	src     source
	ev      bake.Evaluator // the evaluator every node shares, chosen at the first that evaluates
	backend []string
	written []string
	// dest, when set, is where the one write evaluated goes (Rerun: the container itself).
	dest string
	// held counts the grids of the rasters waiting for a reader (evalmem.go).
	held gridCount
}

// source is the script being run: its name for messages and its text, kept byte for byte.
type source struct {
	name string // file name only ("dunes.lua"): what the container's copy is called
	text []byte
}

func (e *evaluator) maxTexels() int {
	if e.opt.maxTexels > 0 {
		return e.opt.maxTexels
	}
	return field.MaxTexels
}

func (e *evaluator) maxSites() float64 {
	if e.opt.maxSites > 0 {
		return e.opt.maxSites
	}
	return maxSites
}

func (e *evaluator) report(stage string, done, total int) {
	if e.opt.Progress != nil {
		e.opt.Progress(stage, done, total)
	}
}

// stage names a node's work for progress: "mask sand".
func (e *evaluator) stage(n *node) string {
	return strings.TrimPrefix(n.typ.name, "terrain.") + " " + n.name
}

func (e *evaluator) warnf(format string, a ...any) {
	if e.opt.Warn != nil {
		e.opt.Warn(fmt.Sprintf(format, a...))
	}
}

// used records an evaluator a node ran on, for the run's summary.
func (e *evaluator) used(backend string) {
	if backend == "" {
		return
	}
	for _, b := range e.backend {
		if b == backend {
			return
		}
	}
	e.backend = append(e.backend, backend)
}

// newEvaluator chooses the run's evaluator: the Go reference when Options.CPU, else the GPU
// (Options.Device, or one of its own), opened at the first node that evaluates and falling back
// to the Go reference with one warning when there is none.
func (e *evaluator) newEvaluator() error {
	c := bake.Choice{Device: e.opt.Device, Warn: func(msg string) { e.warnf("%s", msg) }}
	if e.opt.CPU {
		c.Mode = bake.ModeCPU
	}
	var err error
	e.ev, err = bake.NewEvaluator(e.ctx, c)
	return err
}

// evalOptions are the bake options node n evaluates with: the run's evaluator, and progress and
// warnings under the node's name.
func (e *evaluator) evalOptions(n *node) bake.EvalOptions {
	stage := e.stage(n)
	return bake.EvalOptions{
		Options: bake.Options{
			Progress: func(s string, done, total int) { e.report(stage+": "+s, done, total) },
			Warn:     func(msg string) { e.warnf("node %s: %s", n.label(), msg) },
		},
		Evaluator: e.ev,
	}
}

// release frees the run's kernels and targets, and the device when the run opened it.
func (e *evaluator) release() {
	if e.ev != nil {
		e.ev.Release()
		e.ev = nil
	}
}

// run evaluates the given write nodes and what they depend on, and writes each. A node's raster
// is dropped as soon as the last node reading it has run, and handed to that node to change in
// place rather than copied; each raster keeps only the channels later nodes read or write, and the
// grids held are counted against the memory limit before each node (evalmem.go), so a long chain
// holds only what it must and costs time in proportion to its length.
func (e *evaluator) run(writes []*node) error {
	ord, err := order(writes)
	if err != nil {
		return err
	}
	uses := map[*node]int{}
	for _, n := range ord {
		for _, ed := range n.inputs {
			uses[ed.from]++
		}
	}
	keep := channelNeeds(ord)
	out := map[*node]*raster{}
	for _, n := range ord {
		if err := e.ctx.Err(); err != nil {
			return fmt.Errorf("procgen: before node %s: %w", n.label(), context.Cause(e.ctx))
		}
		in := map[string]*raster{}
		var src *raster
		var last []*raster // inputs this node reads last: released after it, unless moved
		for slot, ed := range n.inputs {
			r := out[ed.from]
			in[slot] = r
			src = r
			if uses[ed.from]--; uses[ed.from] == 0 {
				delete(out, ed.from)
				r.sole = !n.typ.writes
				last = append(last, r)
			}
		}
		if err := e.checkMemory(n, src); err != nil {
			return err
		}
		var r *raster
		if n.typ.writes {
			err = e.evalWrite(n, in["raster"])
		} else {
			r, err = n.typ.eval(e, n, in)
		}
		for _, l := range last {
			l.sole = false
			if l != r {
				e.held.release(l)
			}
		}
		if err != nil {
			return err
		}
		if r == nil {
			continue
		}
		prune(r, keep[n])
		if r.moved {
			e.held.moved(r)
		} else {
			e.held.hold(r)
		}
		if uses[n] > 0 {
			out[n] = r
		} else {
			e.held.release(r)
		}
	}
	if err := e.ctx.Err(); err != nil {
		// Stopped while the last container was being saved: the save finished (it is atomic),
		// and the caller still hears that the run was stopped.
		return fmt.Errorf("procgen: stopped as the last container was saved: %w", context.Cause(e.ctx))
	}
	return nil
}

// destination is where write node n goes: below --out by its name, or the Rerun container.
func (e *evaluator) destination(n *node) (string, error) {
	if e.dest != "" {
		return e.dest, nil
	}
	p, err := outputPath(e.opt.Out, n.str("name", ""))
	if err != nil {
		return "", n.paramErr("name", "%v", err)
	}
	return p, nil
}
