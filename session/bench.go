package session

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
)

// LiveCase is one workload of `strata bench live`: a landscape and the rule a slider drags.
type LiveCase struct {
	Name      string
	Landscape func() *landscape.Landscape
	// Drag returns the stack with the dragged value at step k of n.
	Drag func(base *stack.Stack, k, n int) *stack.Stack
}

// LiveCases are the standard workloads: the dunes sample (its rock rule's minimum slope dragged
// from 10° to 30°) and the stress stack over an n×n dunes field (its rock layer's slope rule).
func LiveCases(n int) []LiveCase {
	return []LiveCase{
		{Name: "sample", Landscape: func() *landscape.Landscape {
			return &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunes()}
		}, Drag: dragMin("rock", 10, 30)},
		{Name: "stress16", Landscape: func() *landscape.Landscape {
			return &landscape.Landscape{Stack: stack.StressStack(), Field: bake.StressField(n)}
		}, Drag: dragMin("rock", 10, 30)},
	}
}

// AspectLiveCase is the sample with an aspect rule in its stack: the dunes sample's stack plus a
// layer "north" on the north-facing slopes (an `input: aspect` band 315°…45°, wrapping through
// north, feathered by 10°) on top, the same drag of the rock layer's minimum slope. Every pass
// then computes each texel's aspect beside its slope, which the plain sample never does: the
// live loop's figures with and without it show what an aspect rule costs (docs/PERFORMANCE.md).
// The band has no jitter: a jittered rule adds a noise per texel (its cost is any rule's, and
// on two cores it outweighs the aspect's atan2 several times over).
func AspectLiveCase() LiveCase {
	return LiveCase{Name: "aspect", Landscape: func() *landscape.Landscape {
		st := stack.SampleDunes()
		north := stack.NewLayer("north")
		north.Tint = stack.Color{0x9a, 0x8c, 0x70}
		north.Rules = []stack.Rule{{Input: stack.InputAspect, Min: stack.F(315), Max: stack.F(45), Softness: 10}}
		st.Layers = append(st.Layers, north)
		return &landscape.Landscape{Stack: st, Field: field.SampleDunes()}
	}, Drag: dragMin("rock", 10, 30)}
}

// LiveCaseNames are the cases `strata bench live --case` takes: LiveCases' and "aspect".
var LiveCaseNames = []string{"sample", "stress16", "aspect"}

// LiveCaseNamed is the case of that name (LiveCaseNames) over an n×n field where it has one.
func LiveCaseNamed(name string, n int) (LiveCase, error) {
	if name == "aspect" {
		return AspectLiveCase(), nil
	}
	for _, c := range LiveCases(n) {
		if c.Name == name {
			return c, nil
		}
	}
	return LiveCase{}, fmt.Errorf("no live case %q (%s)", name, strings.Join(LiveCaseNames, ", "))
}

// dragMin drags the minimum of layer's first rule from lo to hi.
func dragMin(layer string, lo, hi float64) func(*stack.Stack, int, int) *stack.Stack {
	return func(base *stack.Stack, k, steps int) *stack.Stack {
		st := base.Clone()
		l := st.LayerIndex(layer)
		st.Layers[l].Rules[0].Min = stack.F(lo + (hi-lo)*float64(k%steps)/float64(max(steps-1, 1)))
		return st
	}
}

// dragAnyRule drags the first rule with a minimum of the topmost layer that has one, over ±25%
// of its value (at least ±5 of its unit): the drag of an artist trying a rule on a landscape
// the benchmark did not make. nil when no layer above the ground has such a rule.
func dragAnyRule(base *stack.Stack) func(*stack.Stack, int, int) *stack.Stack {
	for l := len(base.Layers) - 1; l >= 1; l-- {
		for r, ru := range base.Layers[l].Rules {
			if ru.Min == nil {
				continue
			}
			v := *ru.Min
			d := max(5, 0.25*v)
			return func(b *stack.Stack, k, steps int) *stack.Stack {
				st := b.Clone()
				st.Layers[l].Rules[r].Min = stack.F(v - d + 2*d*float64(k%steps)/float64(max(steps-1, 1)))
				return st
			}
		}
	}
	return nil
}

// LiveFigures is what `strata bench live` and `strata bench open` report for one landscape.
type LiveFigures struct {
	Case      string
	W, H      int // weights grid
	Evaluator string
	Frame     [2]int // viewport pixels
	Steps     int
	// Open is open → the first frame of the landscape; Settled open → the first settled frame
	// (every page the view samples evaluated, nothing refining).
	Open, Settled time.Duration
	// Edit is a stack edit (a layer added on top) → its settled frame.
	Edit time.Duration
	// Latency is rule change → the first frame showing it (a draft where the machine needs one).
	LatencyMedian, LatencyP95 time.Duration
	// Refine is release → the settled frame.
	RefineMedian, RefineP95 time.Duration
	Drafts                  int // frames of the drag that were drafts or reduced-resolution
	// Eval and Scatter are the mean evaluation and scatter time of the drag's passes (what the
	// status bar shows), FrameTime the mean frame (render + readback) of the drag.
	Eval, Scatter, FrameTime time.Duration
	// RefineEval, RefineScatter, RefineFrame are the same for the refinements after release.
	RefineEval, RefineScatter, RefineFrame time.Duration
	// OpenSteps is what the open's steps took (Session.OpenSteps).
	OpenSteps []StepTime
	// PeakRSS is the process's resident-set high-water mark; DeviceNow and DevicePeak the bytes
	// the device's buffers and textures held at the end and at most (gpu.Device.Memory).
	PeakRSS               int64
	DeviceNow, DevicePeak int64
}

// benchRun is a session driven as the window drives it, headless, with its frames collected.
type benchRun struct {
	s      *Session
	frames chan *Frame
	// nFrames and framesGPU count the frames dabFrames took and their GPU time.
	nFrames   int
	framesGPU time.Duration
	// stray counts the frames of an older version that came while dabFrames waited (a frame the
	// render loop drew beside the dab's pass).
	stray    int
	errMu    sync.Mutex
	firstErr error
	last     *Frame
}

func newBenchRun(ctx context.Context, dev *gpu.Device, ev Evaluator, w, h int) (*benchRun, error) {
	s, err := New(ctx, Options{Device: dev, Width: w, Height: h, Evaluator: ev})
	if err != nil {
		return nil, err
	}
	b := &benchRun{s: s, frames: make(chan *Frame, 256)}
	s.Subscribe(func(e Event) {
		switch e.Kind {
		case EventFrame:
			select {
			case b.frames <- e.Frame:
			default:
			}
		case EventError:
			b.errMu.Lock()
			if b.firstErr == nil {
				b.firstErr = e.Err
			}
			b.errMu.Unlock()
		}
	})
	return b, nil
}

func (b *benchRun) failed() error {
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.firstErr
}

// wait returns when a frame shows version v (settled: not a draft, not refining, at full
// resolution).
func (b *benchRun) wait(ctx context.Context, v uint64, settled bool) error {
	shows := func(f *Frame) bool {
		return f.Version >= v && (!settled || (!f.Draft && f.Scale == 1 && !f.Refining))
	}
	// The frame already taken may be the one waited for: an open whose first pass settles
	// everything draws one frame, both the first and the settled (no second one comes).
	if b.last != nil && shows(b.last) {
		return nil
	}
	timeout := time.After(5 * time.Minute)
	for {
		select {
		case f := <-b.frames:
			if shows(f) {
				b.last = f
				return nil
			}
		case <-time.After(time.Second):
			if err := b.failed(); err != nil {
				return err
			}
			b.s.RequestFrame()
		case <-timeout:
			return fmt.Errorf("session: bench: no frame of version %d within 5 minutes", v)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// opened times the open that starts at t0 to its first and its settled frame.
func (b *benchRun) opened(ctx context.Context, fig *LiveFigures, t0 time.Time) error {
	v := b.s.Version()
	if err := b.wait(ctx, v, false); err != nil {
		return err
	}
	fig.Open = time.Since(t0)
	if err := b.wait(ctx, v, true); err != nil {
		return err
	}
	fig.Settled = time.Since(t0)
	fig.OpenSteps = b.s.OpenSteps()
	fig.Evaluator = b.s.Status().Evaluator
	fi := b.s.Field()
	fig.W, fig.H = fi.WeightsW, fi.WeightsH
	return nil
}

// edit adds a layer on top (a covering rule over the height, as a first snow layer is) and times
// it to its settled frame, then undoes it and waits for that to settle too.
func (b *benchRun) edit(ctx context.Context, fig *LiveFigures) error {
	st := b.s.Stack()
	if st == nil || len(st.Layers) >= stack.MaxLayers {
		return nil
	}
	fi := b.s.Field()
	next := st.Clone()
	snow := stack.NewLayer("bench snow")
	snow.Rules = []stack.Rule{{Input: stack.InputHeight, Min: stack.F((fi.HeightRange[0] + fi.HeightRange[1]) / 2), Softness: 2}}
	next.Layers = append(next.Layers, snow)
	t := time.Now()
	if err := b.s.Apply("bench: add a layer", next); err != nil {
		return err
	}
	if err := b.wait(ctx, b.s.Version(), true); err != nil {
		return err
	}
	fig.Edit = time.Since(t)
	b.s.Undo()
	return b.wait(ctx, b.s.Version(), true)
}

// drag drags a rule through steps values, one at a time: each Drag waits for the first frame
// that shows it, as an artist sees it; after every tenth step the drag is released and the
// refinement to the settled frame is timed.
func (b *benchRun) drag(ctx context.Context, fig *LiveFigures, drag func(*stack.Stack, int, int) *stack.Stack, steps int) error {
	base := b.s.Stack()
	var lat, refine []time.Duration
	for k := 0; k < steps; k++ {
		t := time.Now()
		if err := b.s.Drag("bench", drag(base, k, steps)); err != nil {
			return err
		}
		if err := b.wait(ctx, b.s.Version(), false); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
		st := b.s.Status()
		if st.Last.Draft || st.Refining || b.last.Scale < 1 {
			fig.Drafts++
		}
		fig.Eval += st.Last.Duration / time.Duration(steps)
		fig.Scatter += st.Last.Scatter / time.Duration(steps)
		fig.FrameTime += time.Duration(b.last.Stats.GPUms*float64(time.Millisecond)) / time.Duration(steps)
		if k%10 == 9 || k == steps-1 {
			t := time.Now()
			b.s.EndDrag()
			if err := b.wait(ctx, b.s.Version(), true); err != nil {
				return err
			}
			refine = append(refine, time.Since(t))
			st := b.s.Status()
			fig.RefineEval += st.Last.Duration
			fig.RefineScatter += st.Last.Scatter
			fig.RefineFrame += time.Duration(b.last.Stats.GPUms * float64(time.Millisecond))
		}
	}
	fig.Steps = steps
	fig.LatencyMedian, fig.LatencyP95 = quantile(lat, 0.5), quantile(lat, 0.95)
	fig.RefineMedian, fig.RefineP95 = quantile(refine, 0.5), quantile(refine, 0.95)
	if n := time.Duration(len(refine)); n > 0 {
		fig.RefineEval, fig.RefineScatter, fig.RefineFrame = fig.RefineEval/n, fig.RefineScatter/n, fig.RefineFrame/n
	}
	return nil
}

// finish records memory and closes the session.
func (b *benchRun) finish(fig *LiveFigures) error {
	fig.PeakRSS = bake.PeakRSS()
	fig.DeviceNow, fig.DevicePeak = b.s.dev.Memory()
	err := b.failed()
	b.s.Close()
	return err
}

// BenchLive opens c's landscape (built before the clock starts) and times it to its first and
// settled frames, a stack edit to its settled frame, then drags a rule of c through steps values,
// each to the first frame that shows it, releasing every tenth. It runs the same Session the
// editor window runs, headless, at w×h pixels.
func BenchLive(ctx context.Context, dev *gpu.Device, c LiveCase, ev Evaluator, steps, w, h int) (*LiveFigures, error) {
	b, err := newBenchRun(ctx, dev, ev, w, h)
	if err != nil {
		return nil, err
	}
	fig := &LiveFigures{Case: c.Name, Frame: [2]int{w, h}}
	l := c.Landscape()
	t0 := time.Now()
	if err := b.s.OpenLandscape(ctx, l, c.Name); err != nil {
		b.s.Close()
		return nil, err
	}
	if err := b.run(ctx, fig, t0, c.Drag, steps); err != nil {
		b.s.Close()
		return nil, err
	}
	return fig, b.finish(fig)
}

// BenchOpen opens path as the editor does — a heightmap (the starter stack over it, integer
// codes over range metres) or a terrainData container — and times it from the first byte read
// to its first and settled frames, then a stack edit and a drag of one of its rules as BenchLive
// does.
func BenchOpen(ctx context.Context, dev *gpu.Device, path string, hm HeightmapOptions, ev Evaluator, steps, w, h int) (*LiveFigures, error) {
	b, err := newBenchRun(ctx, dev, ev, w, h)
	if err != nil {
		return nil, err
	}
	fig := &LiveFigures{Case: filepath.Base(path), Frame: [2]int{w, h}}
	t0 := time.Now()
	if strings.HasSuffix(strings.TrimRight(path, "/"), ".terrainData") {
		err = b.s.OpenContainer(ctx, path)
	} else {
		err = b.s.OpenHeightmap(ctx, path, hm)
	}
	if err != nil {
		b.s.Close()
		return nil, err
	}
	var drag func(*stack.Stack, int, int) *stack.Stack
	if st := b.s.Stack(); st != nil {
		drag = dragAnyRule(st)
	}
	if err := b.run(ctx, fig, t0, drag, steps); err != nil {
		b.s.Close()
		return nil, err
	}
	return fig, b.finish(fig)
}

// run is what both benchmarks time after the open began at t0.
func (b *benchRun) run(ctx context.Context, fig *LiveFigures, t0 time.Time, drag func(*stack.Stack, int, int) *stack.Stack, steps int) error {
	if err := b.opened(ctx, fig, t0); err != nil {
		return err
	}
	if b.s.Stack() == nil {
		return nil // baked weights: nothing to edit
	}
	if err := b.edit(ctx, fig); err != nil {
		return err
	}
	if drag == nil || steps < 1 {
		return nil
	}
	return b.drag(ctx, fig, drag, steps)
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return s[min(i, len(s)-1)]
}

// Print writes the figures as the bench command shows them.
func (f *LiveFigures) Print(w io.Writer, adapter string) {
	fmt.Fprintf(w, "live %s, %d×%d weights, %d×%d frame, %s on %s\n", f.Case, f.W, f.H, f.Frame[0], f.Frame[1], f.Evaluator, adapter)
	fmt.Fprintf(w, "  open → first frame     %9.1f ms\n", ms(f.Open))
	fmt.Fprintf(w, "  open → settled view    %9.1f ms\n", ms(f.Settled))
	if len(f.OpenSteps) > 0 {
		var parts []string
		for _, st := range f.OpenSteps {
			parts = append(parts, fmt.Sprintf("%s %.1f ms", st.Name, ms(st.Took)))
		}
		fmt.Fprintf(w, "  the open's steps       %s\n", strings.Join(parts, ", "))
	}
	if f.Edit > 0 {
		fmt.Fprintf(w, "  stack edit → settled   %9.1f ms   (a layer added on top)\n", ms(f.Edit))
	}
	if f.Steps > 0 {
		fmt.Fprintf(w, "  rule change → frame    median %8.1f ms   p95 %8.1f ms   (%d steps, %d drafts)\n",
			ms(f.LatencyMedian), ms(f.LatencyP95), f.Steps, f.Drafts)
		fmt.Fprintf(w, "  release → settled      median %8.1f ms   p95 %8.1f ms\n", ms(f.RefineMedian), ms(f.RefineP95))
		fmt.Fprintf(w, "  a drag step's parts    evaluation %.1f ms, scatter %.1f ms, frame %.1f ms (means)\n", ms(f.Eval), ms(f.Scatter), ms(f.FrameTime))
		fmt.Fprintf(w, "  a refinement's parts   evaluation %.1f ms, scatter %.1f ms, frame %.1f ms (means)\n", ms(f.RefineEval), ms(f.RefineScatter), ms(f.RefineFrame))
	}
	fmt.Fprintf(w, "  peak RSS               %9.2f GiB\n", float64(f.PeakRSS)/(1<<30))
	fmt.Fprintf(w, "  device memory          %9.2f GiB at the end, %.2f GiB at most (buffers and textures)\n", float64(f.DeviceNow)/(1<<30), float64(f.DevicePeak)/(1<<30))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
