package session

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/stack"
)

// LiveCase is one workload of `strata bench live`: a landscape and the rule a slider drags.
type LiveCase struct {
	Name      string
	Landscape func() *bake.Landscape
	// Drag returns the stack with the dragged value at step k of n.
	Drag func(base *stack.Stack, k, n int) *stack.Stack
}

// LiveCases are the standard workloads: the dunes sample (its rock rule's minimum slope dragged
// from 10° to 30°) and the stress stack over an n×n dunes field (its rock layer's slope rule).
func LiveCases(n int) []LiveCase {
	dragMin := func(layer string, lo, hi float64) func(*stack.Stack, int, int) *stack.Stack {
		return func(base *stack.Stack, k, steps int) *stack.Stack {
			st := base.Clone()
			l := st.LayerIndex(layer)
			st.Layers[l].Rules[0].Min = stack.F(lo + (hi-lo)*float64(k%steps)/float64(max(steps-1, 1)))
			return st
		}
	}
	return []LiveCase{
		{Name: "sample", Landscape: func() *bake.Landscape {
			return &bake.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunes()}
		}, Drag: dragMin("rock", 10, 30)},
		{Name: "stress16", Landscape: func() *bake.Landscape {
			return &bake.Landscape{Stack: stack.StressStack(), Field: bake.StressField(n)}
		}, Drag: dragMin("rock", 10, 30)},
	}
}

// LiveFigures is what `strata bench live` reports for one case.
type LiveFigures struct {
	Case      string
	W, H      int // weights grid
	Evaluator string
	Frame     [2]int // viewport pixels
	Steps     int
	// Latency is rule change → the first frame showing it (a draft where the machine needs one).
	LatencyMedian, LatencyP95 time.Duration
	// Refine is release → the full-resolution frame.
	RefineMedian, RefineP95 time.Duration
	Drafts                  int // frames of the drag that were drafts or reduced-resolution
	Open                    time.Duration
	// Eval and Scatter are the mean evaluation and scatter time of the drag's passes (what the
	// status bar shows), FrameTime the mean frame (render + readback) of the drag.
	Eval, Scatter, FrameTime time.Duration
	// RefineEval, RefineScatter, RefineFrame are the same for the refinements after release.
	RefineEval, RefineScatter, RefineFrame time.Duration
}

// BenchLive drags a rule of c through steps values, one at a time: each Drag waits for the
// first frame that shows it, as an artist sees it; after every tenth step the drag is released
// and the refinement to a full-resolution frame is timed. It runs the same Session the editor
// window runs, headless, at w×h pixels.
func BenchLive(ctx context.Context, dev *gpu.Device, c LiveCase, ev Evaluator, steps, w, h int) (*LiveFigures, error) {
	s, err := New(ctx, Options{Device: dev, Width: w, Height: h, Evaluator: ev})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	frames := make(chan *Frame, 64)
	var errMu sync.Mutex
	var firstErr error
	s.Subscribe(func(e Event) {
		switch e.Kind {
		case EventFrame:
			select {
			case frames <- e.Frame:
			default:
			}
		case EventError:
			errMu.Lock()
			if firstErr == nil {
				firstErr = e.Err
			}
			errMu.Unlock()
		}
	})
	failed := func() error {
		errMu.Lock()
		defer errMu.Unlock()
		return firstErr
	}
	// wait returns when a frame shows version v (full: not a draft, at full resolution).
	var lastFrame *Frame
	wait := func(v uint64, full bool) error {
		timeout := time.After(5 * time.Minute)
		for {
			select {
			case f := <-frames:
				if f.Version >= v && (!full || (!f.Draft && f.Scale == 1 && !f.Refining)) {
					lastFrame = f
					return nil
				}
			case <-time.After(time.Second):
				if err := failed(); err != nil {
					return err
				}
				s.RequestFrame()
			case <-timeout:
				return fmt.Errorf("session: bench live: no frame of version %d within 5 minutes", v)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	t0 := time.Now()
	l := c.Landscape()
	if err := s.OpenLandscape(ctx, l, c.Name); err != nil {
		return nil, err
	}
	if err := wait(s.Version(), true); err != nil {
		return nil, err
	}
	fig := &LiveFigures{Case: c.Name, W: l.Geometry.Field.WeightsW, H: l.Geometry.Field.WeightsH, Steps: steps,
		Evaluator: s.Status().Evaluator, Frame: [2]int{w, h}, Open: time.Since(t0)}
	base := s.Stack()
	var lat, refine []time.Duration
	for k := 0; k < steps; k++ {
		t := time.Now()
		if err := s.Drag("bench", c.Drag(base, k, steps)); err != nil {
			return nil, err
		}
		v := s.Version()
		if err := wait(v, false); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t))
		st := s.Status()
		if st.Last.Draft || st.Refining {
			fig.Drafts++
		}
		fig.Eval += st.Last.Duration / time.Duration(steps)
		fig.Scatter += st.Last.Scatter / time.Duration(steps)
		if lastFrame != nil {
			fig.FrameTime += time.Duration(lastFrame.Stats.GPUms*float64(time.Millisecond)) / time.Duration(steps)
		}
		if k%10 == 9 || k == steps-1 {
			t := time.Now()
			s.EndDrag()
			if err := wait(s.Version(), true); err != nil {
				return nil, err
			}
			refine = append(refine, time.Since(t))
			st := s.Status()
			fig.RefineEval += st.Last.Duration
			fig.RefineScatter += st.Last.Scatter
			if lastFrame != nil {
				fig.RefineFrame += time.Duration(lastFrame.Stats.GPUms * float64(time.Millisecond))
			}
		}
	}
	fig.LatencyMedian, fig.LatencyP95 = quantile(lat, 0.5), quantile(lat, 0.95)
	fig.RefineMedian, fig.RefineP95 = quantile(refine, 0.5), quantile(refine, 0.95)
	if n := time.Duration(len(refine)); n > 0 {
		fig.RefineEval, fig.RefineScatter, fig.RefineFrame = fig.RefineEval/n, fig.RefineScatter/n, fig.RefineFrame/n
	}
	return fig, failed()
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
	fmt.Fprintf(w, "  open to first frame   %9.1f ms\n", ms(f.Open))
	fmt.Fprintf(w, "  rule change → frame   median %8.1f ms   p95 %8.1f ms   (%d steps, %d drafts)\n",
		ms(f.LatencyMedian), ms(f.LatencyP95), f.Steps, f.Drafts)
	fmt.Fprintf(w, "  release → full frame  median %8.1f ms   p95 %8.1f ms\n", ms(f.RefineMedian), ms(f.RefineP95))
	fmt.Fprintf(w, "  a drag step's parts   evaluation %.1f ms, scatter %.1f ms, frame %.1f ms (means)\n", ms(f.Eval), ms(f.Scatter), ms(f.FrameTime))
	fmt.Fprintf(w, "  a refinement's parts  evaluation %.1f ms, scatter %.1f ms, frame %.1f ms (means)\n", ms(f.RefineEval), ms(f.RefineScatter), ms(f.RefineFrame))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
