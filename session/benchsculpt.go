package session

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"runtime/metrics"
	"slices"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/landscape"
	"strata/stack"
)

// SculptCase is one workload of `strata bench sculpt`: a landscape the strokes shape.
type SculptCase struct {
	Name      string
	Landscape func() *landscape.Landscape
}

// SculptCases are the standard workloads over an n×n dunes field: the editor's sample (its own
// stack, what a person sculpts after File → New → Sample) and the stress stack with its layers
// and populations (bake.StressField: the dunes with a snow mask and a sediment channel).
func SculptCases(n int) []SculptCase {
	return []SculptCase{
		{Name: "sample", Landscape: func() *landscape.Landscape {
			return &landscape.Landscape{Stack: stack.SampleDunes(), Field: field.SampleDunesSized(n)}
		}},
		{Name: "stress16", Landscape: func() *landscape.Landscape {
			return &landscape.Landscape{Stack: stack.StressStack(), Field: bake.StressField(n)}
		}},
	}
}

// SculptDabs is how many dabs one stroke of the benchmark lays: one Stroke call each, a quarter
// radius apart (the session's dab spacing), so the stroke is two radii long.
const SculptDabs = 8

// SculptFigures is what `strata bench sculpt` reports for one landscape.
type SculptFigures struct {
	Case      string
	W, H      int // height grid
	Evaluator string
	Frame     [2]int
	Radius    float64 // the brush's radius, metres
	Strokes   int
	Dabs      int
	// Open is open → the settled first view (not part of the sculpt figures).
	Open time.Duration
	// First is dab → the first frame of the dab's version (a draft of the view's pages, or a
	// reduced-resolution frame, where the machine draws one).
	FirstMedian, FirstP95 time.Duration
	// Final is dab → the first frame of the dab's version with every page the view samples
	// evaluated and the touched tiles' full-resolution weights and instances placed (nothing
	// refining), at whatever resolution the gesture's frames are drawn.
	FinalMedian, FinalP95 time.Duration
	Drafts                int // first frames that were drafts or not final
	Reduced               int // final frames drawn below the viewport's full resolution
	// Settled is release → the settled frame (full resolution, the spacing re-placed everywhere).
	SettledMedian, SettledP95 time.Duration
	// Eval, Scatter and FrameTime are the means over the dabs of the last pass's evaluation and
	// scatter (the status bar's) and of the final frame's GPU time.
	Eval, Scatter, FrameTime time.Duration
	// Parts is where the worker's time went from a dab to its final frame, summed over the
	// passes of that span (means over the dabs; passes counts them); Device is what the device
	// was asked in those spans (totals over the dabs: submissions, host waits and their time,
	// bytes written);
	// Frames is the frames drawn in it (mean), FramesGPU their GPU time (mean, summed a dab).
	Parts passParts
	// Slowest is the slowest dab → final frame, SlowestParts its passes' parts and
	// SlowestFrames its frames (what a p95 is made of).
	Slowest       time.Duration
	SlowestParts  passParts
	SlowestFrames int
	// GCs is the garbage collections that ran from a dab to its final frame (all dabs),
	// SlowestGCs those of the slowest dab.
	GCs, SlowestGCs uint64
	// Worst is the slowest dabs, slowest first (sculptWorst of them); Stray the frames of an
	// older version drawn while a dab was waited for (all dabs).
	Worst     []SlowDab
	Stray     int
	Device    gpu.Counts
	Frames    float64
	FramesGPU time.Duration
	// Save is the --out save's time (bake.Rebake of the sculpted landscape); Saved its path.
	Save  time.Duration
	Saved string
	// HeightRange is the ground's range after the strokes.
	HeightRange           [2]float64
	PeakRSS               int64
	DeviceNow, DevicePeak int64
}

// SlowDab is one dab among the slowest: which (stroke and dab, from 0), dab → final frame, its
// passes' parts, and the frames of older versions drawn while it was waited for.
type SlowDab struct {
	Stroke, Dab int
	Took        time.Duration
	Parts       passParts
	Stray       int
	Device      gpu.Counts
}

// sculptWorst is how many of the slowest dabs the figures list.
const sculptWorst = 5

// addWorst keeps the sculptWorst slowest dabs, slowest first.
func (f *SculptFigures) addWorst(d SlowDab) {
	f.Worst = append(f.Worst, d)
	slices.SortFunc(f.Worst, func(a, b SlowDab) int { return cmp.Compare(b.Took, a.Took) })
	if len(f.Worst) > sculptWorst {
		f.Worst = f.Worst[:sculptWorst]
	}
}

// sculptStroke is stroke k's brush and its dab centres: raise, smooth, flatten in turn, each
// triple on its own spot of a ring around the field's middle (the smooth and the flatten go over
// the hill the raise made), along a line two radii long.
func sculptStroke(k int, fi FieldInfo, radius float64) (Brush, [][2]float64) {
	modes := []SculptMode{SculptRaise, SculptSmooth, SculptFlatten}
	b := Brush{Sculpt: modes[k%3], Radius: radius, Strength: 0.6, Falloff: 0.6}
	g := k / 3
	a := float64(g) * 2.39996 // the golden angle: spots spread, never repeat
	ring := 0.15 * math.Min(fi.Size[0], fi.Size[1]) * math.Sqrt(float64(g%8)/8)
	cx, cz := fi.Origin[0]+ring*math.Cos(a), fi.Origin[1]+ring*math.Sin(a)
	dir := float64(k%3) * math.Pi / 3
	pts := make([][2]float64, SculptDabs)
	for d := range pts {
		t := (float64(d)/float64(SculptDabs-1) - 0.5) * 2 * radius * float64(SculptDabs-1) / float64(SculptDabs)
		pts[d] = [2]float64{cx + t*math.Cos(dir), cz + t*math.Sin(dir)}
	}
	return b, pts
}

// BenchSculpt opens c's landscape (built before the clock starts) in a Session as the editor
// window does, headless at w×h pixels, waits for its settled view, then lays strokes strokes of
// raise, smooth and flatten (sculptStroke), each dab given as the viewport gives a dragged
// point (Stroke, then the brush ring there) and timed to the first frame showing it and to the
// frame with the touched tiles final; each release is timed to the settled frame. With out set
// the landscape is saved there afterwards as Save does (strokes 0: the landscape as opened).
func BenchSculpt(ctx context.Context, dev *gpu.Device, c SculptCase, ev Evaluator, strokes, w, h int, out string) (*SculptFigures, error) {
	if strokes < 0 {
		return nil, fmt.Errorf("session: bench sculpt: %d strokes", strokes)
	}
	b, err := newBenchRun(ctx, dev, ev, w, h)
	if err != nil {
		return nil, err
	}
	fig, err := b.sculpt(ctx, c, strokes, out)
	if err != nil {
		b.s.Close()
		return nil, err
	}
	fig.PeakRSS = bake.PeakRSS()
	fig.DeviceNow, fig.DevicePeak = b.s.dev.Memory()
	err = b.failed()
	b.s.Close()
	return fig, err
}

func (b *benchRun) sculpt(ctx context.Context, c SculptCase, strokes int, out string) (*SculptFigures, error) {
	w, h := b.s.ViewSize()
	fig := &SculptFigures{Case: c.Name, Frame: [2]int{w, h}, Strokes: strokes}
	l := c.Landscape()
	t0 := time.Now()
	if err := b.s.OpenLandscape(ctx, l, c.Name); err != nil {
		return nil, err
	}
	if err := b.wait(ctx, b.s.Version(), true); err != nil {
		return nil, err
	}
	fig.Open = time.Since(t0)
	fig.Evaluator = b.s.Status().Evaluator
	fi := b.s.Field()
	fig.W, fig.H = fi.HeightW, fi.HeightH
	// The editor's brush on a new landscape: a fiftieth of the field's larger side.
	fig.Radius = max(1, float64(int(max(fi.Size[0], fi.Size[1])/50)))
	var first, final, settled []time.Duration
	for k := 0; k < strokes; k++ {
		br, pts := sculptStroke(k, fi, fig.Radius)
		if err := b.s.BeginStroke(br); err != nil {
			return nil, err
		}
		for di, pt := range pts {
			parts0, dev0, frames0, gpu0, gc0, stray0 := b.s.passParts(), b.s.dev.Counts(), b.nFrames, b.framesGPU, gcCycles(), b.stray
			t := time.Now()
			b.s.Stroke(pt[0], pt[1])
			b.s.SetBrushCursor(true, pt[0], pt[1], br.Radius)
			f1, f2, err := b.dabFrames(ctx, b.s.Version())
			if err != nil {
				return nil, err
			}
			dp := b.s.passParts().sub(parts0)
			fig.Parts = fig.Parts.add(dp)
			gcs := gcCycles() - gc0
			fig.GCs += gcs
			if took := f2.At.Sub(t); took > fig.Slowest {
				fig.Slowest, fig.SlowestParts, fig.SlowestFrames, fig.SlowestGCs = took, dp, b.nFrames-frames0, gcs
			}
			d := b.s.dev.Counts().Sub(dev0)
			fig.addWorst(SlowDab{Stroke: k, Dab: di, Took: f2.At.Sub(t), Parts: dp, Stray: b.stray - stray0, Device: d})
			fig.Device = fig.Device.Add(d)
			fig.Frames += float64(b.nFrames - frames0)
			fig.FramesGPU += b.framesGPU - gpu0
			first = append(first, f1.At.Sub(t))
			final = append(final, f2.At.Sub(t))
			if f1 != f2 {
				fig.Drafts++
			}
			if f2.Scale < 1 {
				fig.Reduced++
			}
			st := b.s.Status()
			fig.Eval += st.Last.Duration
			fig.Scatter += st.Last.Scatter
			fig.FrameTime += time.Duration(f2.Stats.GPUms * float64(time.Millisecond))
		}
		t := time.Now()
		b.s.EndStroke()
		if err := b.wait(ctx, b.s.Version(), true); err != nil {
			return nil, err
		}
		settled = append(settled, b.last.At.Sub(t))
	}
	fig.Dabs = len(first)
	if n := time.Duration(fig.Dabs); n > 0 {
		fig.Eval, fig.Scatter, fig.FrameTime = fig.Eval/n, fig.Scatter/n, fig.FrameTime/n
		pp := &fig.Parts
		pp.apply, pp.fieldWait, pp.sync, pp.view, pp.full, pp.density, pp.place = pp.apply/n, pp.fieldWait/n, pp.sync/n, pp.view/n, pp.full/n, pp.density/n, pp.place/n
		pp.dabDevice, pp.dabHost, pp.marks = pp.dabDevice/n, pp.dabHost/n, pp.marks/n
		fig.Frames /= float64(n)
		fig.FramesGPU /= n
	}
	fig.Stray = b.stray
	fig.FirstMedian, fig.FirstP95 = quantile(first, 0.5), quantile(first, 0.95)
	fig.FinalMedian, fig.FinalP95 = quantile(final, 0.5), quantile(final, 0.95)
	fig.SettledMedian, fig.SettledP95 = quantile(settled, 0.5), quantile(settled, 0.95)
	fig.HeightRange = b.s.Field().HeightRange
	if out != "" {
		t := time.Now()
		if err := b.s.SaveAs(ctx, out, nil); err != nil {
			return nil, err
		}
		fig.Save, fig.Saved = time.Since(t), out
	}
	return fig, nil
}

// dabFrames waits for the first frame of version v or later and for the first such frame that
// is final (not a draft, nothing refining: the touched tiles' weights and instances are placed);
// both are the same frame when the first is final.
func (b *benchRun) dabFrames(ctx context.Context, v uint64) (first, final *Frame, err error) {
	timeout := time.After(5 * time.Minute)
	for {
		select {
		case f := <-b.frames:
			if f.Version < v {
				b.stray++
				continue
			}
			b.nFrames++
			b.framesGPU += time.Duration(f.Stats.GPUms * float64(time.Millisecond))
			if first == nil {
				first = f
			}
			if !f.Draft && !f.Refining {
				return first, f, nil
			}
		case <-time.After(time.Second):
			if err := b.failed(); err != nil {
				return nil, nil, err
			}
			b.s.RequestFrame()
		case <-timeout:
			return nil, nil, fmt.Errorf("session: bench sculpt: no final frame of version %d within 5 minutes", v)
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// Print writes the figures as the bench command shows them.
func (f *SculptFigures) Print(w io.Writer, adapter string) {
	fmt.Fprintf(w, "sculpt %s, %d×%d height, %d×%d frame, %s on %s\n", f.Case, f.W, f.H, f.Frame[0], f.Frame[1], f.Evaluator, adapter)
	fmt.Fprintf(w, "  open → settled view    %9.1f ms\n", ms(f.Open))
	if f.Dabs > 0 {
		fmt.Fprintf(w, "  %d strokes of raise, smooth, flatten (radius %.0f m), %d dabs\n", f.Strokes, f.Radius, f.Dabs)
		fmt.Fprintf(w, "  dab → first frame      median %8.1f ms   p95 %8.1f ms   (%d drafts or not yet final)\n", ms(f.FirstMedian), ms(f.FirstP95), f.Drafts)
		fmt.Fprintf(w, "  dab → final frame      median %8.1f ms   p95 %8.1f ms   (touched tiles' weights and instances placed; %d at reduced resolution)\n", ms(f.FinalMedian), ms(f.FinalP95), f.Reduced)
		fmt.Fprintf(w, "  release → settled      median %8.1f ms   p95 %8.1f ms\n", ms(f.SettledMedian), ms(f.SettledP95))
		fmt.Fprintf(w, "  a dab's parts          evaluation %.1f ms, scatter %.1f ms, frame %.1f ms (means)\n", ms(f.Eval), ms(f.Scatter), ms(f.FrameTime))
		pp := &f.Parts
		fmt.Fprintf(w, "  dab → final, its work  %.1f passes: apply %.2f (field lock %.2f), sync %.2f, view %.2f, full %.2f, density %.2f, place %.2f ms; %.1f frames (GPU %.2f ms)\n",
			float64(pp.passes)/float64(f.Dabs), ms(pp.apply), ms(pp.fieldWait), ms(pp.sync), ms(pp.view), ms(pp.full), ms(pp.density), ms(pp.place), f.Frames, ms(f.FramesGPU))
		sp := &f.SlowestParts
		fmt.Fprintf(w, "  the slowest dab        %.1f ms: %d passes: apply %.2f (field lock %.2f), sync %.2f, view %.2f, full %.2f, density %.2f, place %.2f ms; %d frames, %d GCs (%d in all the dabs)\n",
			ms(f.Slowest), sp.passes, ms(sp.apply), ms(sp.fieldWait), ms(sp.sync), ms(sp.view), ms(sp.full), ms(sp.density), ms(sp.place), f.SlowestFrames, f.SlowestGCs, f.GCs)
		fmt.Fprintf(w, "  apply, its parts       the dab on the device %.2f, its host twin and undo blocks %.2f, the marks after %.2f ms (means); %d frames of an older version drawn during the dabs\n",
			ms(pp.dabDevice), ms(pp.dabHost), ms(pp.marks), f.Stray)
		for _, d := range f.Worst {
			q := &d.Parts
			fmt.Fprintf(w, "  a slow dab             stroke %d dab %d: %.1f ms: apply %.2f (device %.2f, host %.2f, marks %.2f, field lock %.2f), view %.2f, full %.2f, density %.2f, place %.2f ms; %d older frames; %d waits (%.2f ms), in submissions %.2f ms, queued %.2f ms\n",
				d.Stroke, d.Dab, ms(d.Took), ms(q.apply), ms(q.dabDevice), ms(q.dabHost), ms(q.marks), ms(q.fieldWait), ms(q.view), ms(q.full), ms(q.density), ms(q.place), d.Stray,
				d.Device.Waits, ms(d.Device.Waited), ms(d.Device.Submitting), ms(d.Device.Queued))
		}
		n := float64(f.Dabs)
		fmt.Fprintf(w, "  dab → final, device    %.1f submissions (%.2f ms in them), %.2f waits (%.2f ms blocked), %.2f ms queued for the device, %.3f MiB written (means)\n",
			float64(f.Device.Submits)/n, ms(f.Device.Submitting)/n, float64(f.Device.Waits)/n, ms(f.Device.Waited)/n, ms(f.Device.Queued)/n, float64(f.Device.WriteBytes)/n/(1<<20))
		fmt.Fprintf(w, "  height range after     %.2f … %.2f m\n", f.HeightRange[0], f.HeightRange[1])
	}
	if f.Saved != "" {
		fmt.Fprintf(w, "  saved %s in %.1f ms\n", f.Saved, ms(f.Save))
	}
	fmt.Fprintf(w, "  peak RSS               %9.2f GiB\n", float64(f.PeakRSS)/(1<<30))
	fmt.Fprintf(w, "  device memory          %9.2f GiB at the end, %.2f GiB at most (buffers and textures)\n", float64(f.DeviceNow)/(1<<30), float64(f.DevicePeak)/(1<<30))
}

// gcCycles is the garbage collections completed so far (runtime/metrics: no stop of the world).
func gcCycles() uint64 {
	m := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m[0].Value.Uint64()
}
