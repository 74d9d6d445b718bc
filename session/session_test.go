package session

import (
	"bytes"
	"context"
	"image"
	"slices"
	"sync"
	"testing"
	"time"

	"strata/bake"
	"strata/field"
	"strata/gpu"
	"strata/internal/testgpu"
	"strata/stack"
	"strata/viewport"
)

// testDevice is the test binary's one device (internal/testgpu).
func testDevice(t testing.TB) *gpu.Device { return testgpu.Device(t) }

// harness is a session with its events collected.
type harness struct {
	t  testing.TB
	s  *Session
	mu sync.Mutex
	ev []Event
	ch chan struct{}
	// allowErrors is how many error events the test provokes on purpose.
	allowErrors int
}

func newHarness(t testing.TB, o Options) *harness {
	t.Helper()
	o.Device = testDevice(t)
	if o.Width == 0 {
		o.Width, o.Height = 160, 100
	}
	s, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: s, ch: make(chan struct{}, 1)}
	s.Subscribe(func(e Event) {
		h.mu.Lock()
		h.ev = append(h.ev, e)
		h.mu.Unlock()
		select {
		case h.ch <- struct{}{}:
		default:
		}
	})
	t.Cleanup(s.Close)
	return h
}

// waitFrame waits for a full (not draft) frame showing version v or later and returns it.
func (h *harness) waitFrame(v uint64) *Frame {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		h.mu.Lock()
		for i := len(h.ev) - 1; i >= 0; i-- {
			if f := h.ev[i].Frame; f != nil && f.Version >= v && !f.Draft && f.Scale == 1 && !f.Refining {
				h.mu.Unlock()
				return f
			}
		}
		var errs []error
		for _, e := range h.ev {
			if e.Kind == EventError {
				errs = append(errs, e.Err)
			}
		}
		h.mu.Unlock()
		if len(errs) > h.allowErrors {
			h.t.Fatalf("session errors: %v", errs)
		}
		select {
		case <-h.ch:
		case <-time.After(200 * time.Millisecond):
			h.s.RequestFrame()
		case <-deadline:
			h.mu.Lock()
			for _, e := range h.ev {
				if e.Frame != nil {
					h.t.Logf("frame v%d draft %v scale %v", e.Frame.Version, e.Frame.Draft, e.Frame.Scale)
				} else {
					h.t.Logf("event %d %+v %v %s", e.Kind, e.Status, e.Err, e.Message)
				}
			}
			h.mu.Unlock()
			h.t.Fatalf("no full frame of version %d within 60 s (now %d, status %+v)", v, h.s.Version(), h.s.Status())
		}
	}
}

// mark is where the events stand now, for frameAfter.
func (h *harness) mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ev)
}

// frameAfter waits for a full frame drawn after mark (an overlay or a binding changed, which the
// version does not count) and returns it.
func (h *harness) frameAfter(mark int) *Frame {
	h.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		h.mu.Lock()
		for _, e := range h.ev[mark:] {
			if f := e.Frame; f != nil && !f.Draft && f.Scale == 1 && !f.Refining && f.Version >= h.s.Version() {
				h.mu.Unlock()
				return f
			}
		}
		h.mu.Unlock()
		select {
		case <-h.ch:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			h.t.Fatalf("no full frame after event %d within 60 s", mark)
		}
	}
}

func (h *harness) count(kind EventKind) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, e := range h.ev {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func diffPixels(a, b *image.RGBA) int {
	n := 0
	for i := 0; i+3 < len(a.Pix) && i+3 < len(b.Pix); i += 4 {
		if a.Pix[i] != b.Pix[i] || a.Pix[i+1] != b.Pix[i+1] || a.Pix[i+2] != b.Pix[i+2] {
			n++
		}
	}
	return n
}

func marshal(t testing.TB, s *stack.Stack) []byte {
	t.Helper()
	b, err := stack.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Edit → frame, end to end: a rule change reaches a new frame that differs where the ground
// does, undo brings back the stack byte for byte and the picture pixel for pixel, redo the edit.
func TestEditToFrame(t *testing.T) {
	for _, ev := range []Evaluator{CPU, GPU} {
		t.Run(ev.String(), func(t *testing.T) {
			h := newHarness(t, Options{Evaluator: ev})
			ctx := context.Background()
			if err := h.s.OpenSampleSized(ctx, 128, nil); err != nil {
				t.Fatal(err)
			}
			h.s.FitCamera(true)
			first := h.waitFrame(h.s.Version())
			orig := h.s.Stack()
			origYAML := marshal(t, orig)

			st := orig.Clone()
			st.Layers[1].Rules[0].Min = stack.F(4) // rock from 4° instead of 18°: much more rock
			if err := h.s.Apply("rock: min slope", st); err != nil {
				t.Fatal(err)
			}
			edited := h.waitFrame(h.s.Version())
			if d := diffPixels(first.Image, edited.Image); d < 200 {
				t.Fatalf("the rule change moved %d pixels", d)
			}
			if !h.s.Modified() || h.s.UndoLabel() != "rock: min slope" {
				t.Fatalf("modified %v, undo label %q", h.s.Modified(), h.s.UndoLabel())
			}
			if !h.s.Undo() {
				t.Fatal("nothing to undo")
			}
			if got := marshal(t, h.s.Stack()); !bytes.Equal(got, origYAML) {
				t.Fatalf("undo left the stack\n%s\nwant\n%s", got, origYAML)
			}
			back := h.waitFrame(h.s.Version())
			if d := diffPixels(first.Image, back.Image); d != 0 {
				t.Errorf("after undo %d pixels differ from the first frame", d)
			}
			if !h.s.Redo() {
				t.Fatal("nothing to redo")
			}
			again := h.waitFrame(h.s.Version())
			if d := diffPixels(edited.Image, again.Image); d != 0 {
				t.Errorf("after redo %d pixels differ from the edited frame", d)
			}
			// A stack that does not validate is refused and changes nothing.
			bad := h.s.Stack().Clone()
			bad.Layers[1].Rules[0].Softness = -1
			if err := h.s.Apply("bad", bad); err == nil {
				t.Error("a negative softness was accepted")
			}
			if h.s.UndoLabel() != "rock: min slope" {
				t.Errorf("a refused edit reached the history: %q", h.s.UndoLabel())
			}
		})
	}
}

// A frame drawn while the document is ahead of the last published pass says it is refining:
// a script (or the editor's first-frame figure) that waits for a settled frame must not take
// the picture of an older version for it — after an open, the ground before its weights. The
// worker is held off so the question is asked between the edit and its pass.
func TestFrameAheadOfPassRefines(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 128, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	h.s.pipe.passMu.Lock()
	st := h.s.Stack().Clone()
	st.Populations[0].Density *= 2
	err := h.s.Apply("trees: density", st)
	version, _, refining := h.s.pipe.shownFrame()
	v := h.s.Version()
	h.s.pipe.passMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if version >= v || !refining {
		t.Errorf("before version %d was evaluated the frame shows version %d and says refining %v", v, version, refining)
	}
	if got := h.waitFrame(v); got.Version != v {
		t.Errorf("the settled frame shows version %d, want %d", got.Version, v)
	}
}

// An edit that arrives while a pass prepares (after it took its stack, before it drained the
// dirty tiles) is evaluated with its own stack: the tiles it marked and the placement it asked for
// are not drained by the pass of the stack before it. The result equals a session opened on the
// final stack, pixel for pixel, and the population it added is placed.
func TestEditDuringPassIsEvaluated(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 128, nil); err != nil {
		t.Fatal(err)
	}
	h.s.FitCamera(true)
	h.waitFrame(h.s.Version())
	orig := h.s.Stack()
	first := orig.Clone()
	first.Layers[1].Rules[0].Min = stack.F(10)
	final := orig.Clone()
	final.Layers[1].Rules[0].Min = stack.F(4)
	pines := stack.NewPopulation("pines")
	pines.Density, pines.Seed = 0.002, 3
	final.Populations = append(final.Populations, pines)
	var once sync.Once
	h.s.pipe.testHookBeforeDrain = func() {
		once.Do(func() {
			if err := h.s.Apply("rock and pines", final); err != nil {
				t.Error(err)
			}
		})
	}
	if err := h.s.Apply("rock: min slope", first); err != nil {
		t.Fatal(err)
	}
	got := h.waitFrame(h.s.Version())
	n := -1
	for _, p := range h.s.Status().Instances {
		if p.Name == "pines" {
			n = p.Count
		}
	}
	if n <= 0 {
		t.Errorf("the population added during the pass has %d instances", n)
	}

	ref := newHarness(t, Options{Evaluator: CPU})
	if err := ref.s.OpenSampleSized(ctx, 128, final); err != nil {
		t.Fatal(err)
	}
	ref.s.FitCamera(true)
	want := ref.waitFrame(ref.s.Version())
	if d := diffPixels(want.Image, got.Image); d != 0 {
		t.Errorf("%d pixels differ from a session opened on the final stack", d)
	}
}

// Options.PrepareSample: OpenSample takes the ground built in the background, the sample's own
// bits; a second OpenSample builds a fresh one (the first may have been painted on).
func TestPrepareSample(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU, PrepareSample: true})
	ctx := context.Background()
	want := field.SampleDunes()
	var first *field.Field
	for k := range 2 {
		h.s.mu.Lock()
		ahead := h.s.sample != nil
		h.s.mu.Unlock()
		if ahead != (k == 0) {
			t.Fatalf("open %d: a sample built ahead %v", k+1, ahead)
		}
		if err := h.s.OpenSample(ctx); err != nil {
			t.Fatal(err)
		}
		h.s.fmu.Lock()
		got := h.s.land.Field
		h.s.fmu.Unlock()
		if !slices.Equal(got.Height.Data, want.Height.Data) || got.Placement != want.Placement {
			t.Fatalf("open %d: the sample's ground differs from field.SampleDunes", k+1)
		}
		if k == 1 && got.Height == first.Height {
			t.Fatal("the second OpenSample reused the first one's ground")
		}
		first = got
	}
}

// Latest state wins: a burst of 100 drag events ends in the last state with far fewer passes,
// and the drag is one undoable step.
func TestDragBurstCoalesces(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 128, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	statusBefore := h.count(EventStatus)
	orig := h.s.Stack()
	var last *stack.Stack
	for k := 0; k < 100; k++ {
		st := orig.Clone()
		st.Layers[1].Rules[0].Min = stack.F(30 - 0.25*float64(k))
		if err := h.s.Drag("rock: min slope", st); err != nil {
			t.Fatal(err)
		}
		last = st
	}
	h.s.EndDrag()
	h.waitFrame(h.s.Version())
	passes := h.count(EventStatus) - statusBefore
	if passes >= 50 {
		t.Errorf("100 drag events took %d passes; latest-state-wins should need far fewer", passes)
	}
	if got := marshal(t, h.s.Stack()); !bytes.Equal(got, marshal(t, last)) {
		t.Errorf("the drag ended in\n%s\nwant the last state\n%s", got, marshal(t, last))
	}
	if !h.s.Undo() || !bytes.Equal(marshal(t, h.s.Stack()), marshal(t, orig)) {
		t.Error("one undo did not take the whole drag back")
	}
	t.Logf("100 drag events → %d passes", passes)
}

// A population's slider drag leaves the weights alone: on release the population is placed
// again, whole, and no weight tile is evaluated (a layer rule's drag refines every tile).
func TestPopulationDragEvaluatesNoWeights(t *testing.T) {
	for _, ev := range []Evaluator{CPU, GPU} {
		t.Run(ev.String(), func(t *testing.T) { populationDrag(t, ev) })
	}
}

func populationDrag(t *testing.T, ev Evaluator) {
	h := newHarness(t, Options{Evaluator: ev, TileSize: 32})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 128, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	before := h.s.Status().Instances[0].Count
	orig := h.s.Stack()
	for k := 1; k <= 10; k++ {
		st := orig.Clone()
		st.Populations[0].Density = orig.Populations[0].Density * (1 + 0.2*float64(k))
		if err := h.s.Drag("trees: density", st); err != nil {
			t.Fatal(err)
		}
	}
	h.waitFrame(h.s.Version())
	evaluated := h.s.Status().Last // the status keeps the last pass that evaluated tiles
	h.s.EndDrag()
	h.waitFrame(h.s.Version())
	st := h.s.Status()
	if st.Last != evaluated {
		t.Errorf("the release of a density drag evaluated weights: %+v", st.Last)
	}
	if after := st.Instances[0].Count; after <= before {
		t.Errorf("trees %d after tripling the density, %d before", after, before)
	}
}

// The weights the session shows are the bake's: what it saves validates, reopens to the same
// stack and channels, and equals `strata bake`'s weights for that stack and field.
func TestSaveReopen(t *testing.T) {
	h := newHarness(t, Options{Evaluator: GPU})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 96, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	if err := h.s.NewMask("valley"); err != nil {
		t.Fatal(err)
	}
	st := h.s.Stack().Clone()
	snow := stack.NewLayer("snow")
	snow.Rules = []stack.Rule{{Input: stack.InputHeight, Min: stack.F(6), Softness: 1, Jitter: 1},
		{Input: stack.InputMask, Channel: "valley", Max: stack.F(0.5), Softness: 0.1}}
	st.Layers = append(st.Layers, snow)
	if err := h.s.Apply("add snow", st); err != nil {
		t.Fatal(err)
	}
	if err := h.s.BeginStroke(Brush{Target: "mask.valley", Radius: 600, Strength: 1, Falloff: 0.5}); err != nil {
		t.Fatal(err)
	}
	h.s.Stroke(-500, -500)
	h.s.Stroke(500, 300)
	h.s.EndStroke()
	h.waitFrame(h.s.Version())
	path := t.TempDir() + "/edited.terrainData"
	if err := h.s.SaveAs(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	if h.s.Modified() || h.s.Path() != path {
		t.Errorf("after save: modified %v path %q", h.s.Modified(), h.s.Path())
	}
	// Modified follows the history: an edit after the save, then undone, is back at the saved
	// state; redone, it is not; a different edit from the saved step, undone, is back again.
	tint := func(label string, rgb stack.Color) {
		t.Helper()
		st := h.s.Stack().Clone()
		st.Layers[0].Tint = rgb
		if err := h.s.Apply(label, st); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		do   func()
		want bool
	}{
		{func() { tint("tint", stack.Color{0xff, 0, 0}) }, true},
		{func() { h.s.Undo() }, false},
		{func() { h.s.Redo() }, true},
		{func() { h.s.Undo() }, false},
		{func() { tint("other tint", stack.Color{0, 0xff, 0}) }, true},
		{func() { h.s.Undo() }, false},
		{func() { h.s.Undo() }, true}, // the stroke, which was saved
		{func() { h.s.Redo() }, false},
	}
	for i, sp := range steps {
		sp.do()
		if got := h.s.Modified(); got != sp.want {
			t.Errorf("step %d: modified %v, want %v", i, got, sp.want)
		}
	}
	h.waitFrame(h.s.Version())
	l, err := bake.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(marshal(t, l.Stack), marshal(t, h.s.Stack())) {
		t.Errorf("reopened stack differs")
	}
	mask := l.Field.Channels["mask.valley"]
	if mask == nil {
		t.Fatal("the painted mask was not saved")
	}
	painted := 0
	for _, v := range mask.Data {
		if v > 0.5 {
			painted++
		}
	}
	if painted < 100 {
		t.Errorf("the saved mask has %d painted texels", painted)
	}
	ref := &bake.Landscape{Stack: l.Stack, Field: l.Field}
	if _, err := bake.Evaluate(ctx, ref, bake.EvalOptions{CPU: true}); err != nil {
		t.Fatal(err)
	}
	if eq, worst := bake.CompareWeights(ref.Weights, l.Weights); eq < 0.9999 || worst > 1 {
		t.Errorf("saved weights vs the reference: %.5f equal, worst %d", eq, worst)
	}
	// Reopen in the session: the same stack and mask come back.
	if err := h.s.OpenContainer(ctx, path); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	if h.s.Modified() || h.s.Name() != "edited" {
		t.Errorf("reopened: modified %v name %q", h.s.Modified(), h.s.Name())
	}
}

func stackLoad(p string) (*stack.Stack, error) { return stack.Load(p) }
func stackSave(s *stack.Stack, p string) error { return stack.Save(s, p) }
func floatPtr(v float64) *float64              { return &v }

// A tint change reaches the picture without evaluating a tile; a brush stroke re-evaluates only
// the tiles under it; a hole stroke cuts the ground (the picture and the saved container) and
// undo puts it back.
func TestWhatEditsTouch(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU, TileSize: 32})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 128, nil); err != nil {
		t.Fatal(err)
	}
	h.s.FitCamera(true)
	base := h.waitFrame(h.s.Version())
	if got := h.s.Status().Last.Tiles; got != 16 {
		t.Fatalf("first pass: %d tiles, want 16", got)
	}
	passes := h.count(EventStatus)
	st := h.s.Stack().Clone()
	st.Layers[0].Tint = stack.Color{255, 0, 0}
	if err := h.s.Apply("sand: tint", st); err != nil {
		t.Fatal(err)
	}
	red := h.waitFrame(h.s.Version())
	if d := diffPixels(base.Image, red.Image); d < 500 {
		t.Errorf("a red tint changed %d pixels", d)
	}
	for _, e := range h.events(passes) {
		if e.Kind == EventStatus && e.Status.Last.Tiles > 0 && e.Status.Last.Tiles != 16 {
			t.Errorf("a tint change evaluated %d tiles", e.Status.Last.Tiles)
		}
	}
	if h.s.Status().Last.Tiles != 16 {
		t.Errorf("after a tint change the last pass is %+v: a tint must not evaluate tiles", h.s.Status().Last)
	}

	// A mask stroke in one corner: a mask rule reads it, so its tiles (and only those) re-run.
	if err := h.s.NewMask("m"); err != nil {
		t.Fatal(err)
	}
	st = h.s.Stack().Clone()
	st.Layers[1].Rules = append(st.Layers[1].Rules, stack.Rule{Input: stack.InputMask, Channel: "m", Max: stack.F(0.5)})
	if err := h.s.Apply("rock: mask rule", st); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	mn := [2]float64{-2000, -2000}
	if err := h.s.BeginStroke(Brush{Target: "mask.m", Radius: 100, Strength: 1}); err != nil {
		t.Fatal(err)
	}
	h.s.Stroke(mn[0]+300, mn[1]+300)
	h.s.EndStroke()
	h.waitFrame(h.s.Version())
	if got := h.s.Status().Last.Tiles; got < 1 || got > 4 {
		t.Errorf("a 100 m dab re-evaluated %d tiles of 32 texels (31 m each... 1000 m): want 1–4", got)
	}

	// Holes: a stroke cuts, the frame changes, the container keeps them, undo restores.
	before := h.waitFrame(h.s.Version())
	if err := h.s.BeginStroke(Brush{Target: HolesTarget, Radius: 400, Strength: 1}); err != nil {
		t.Fatal(err)
	}
	h.s.Stroke(0, 0)
	h.s.EndStroke()
	holed := h.waitFrame(h.s.Version())
	if d := diffPixels(before.Image, holed.Image); d < 50 {
		t.Errorf("a 400 m hole changed %d pixels", d)
	}
	path := t.TempDir() + "/holes.terrainData"
	if err := h.s.SaveAs(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	l, err := bake.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, hole := range l.Holes {
		if hole {
			n++
		}
	}
	if n < 10 {
		t.Errorf("the saved container has %d hole texels", n)
	}
	if !h.s.Undo() {
		t.Fatal("nothing to undo")
	}
	back := h.waitFrame(h.s.Version())
	if d := diffPixels(before.Image, back.Image); d != 0 {
		t.Errorf("undoing the holes left %d pixels changed", d)
	}
}

// events returns the events from index k on.
func (h *harness) events(k int) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Event(nil), h.ev[min(k, len(h.ev)):]...)
}

// The sitting, through the session the window drives: open the sample, add a snow layer
// with a height rule and jitter (dragged into place), paint a mask that takes the snow out of a
// valley, add trees limited to sand; undo it all, redo it all; save; reopen in a fresh session
// and find it as left; the container validates.
func TestArtistSitting(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 128, nil); err != nil {
		t.Fatal(err)
	}
	h.waitFrame(h.s.Version())
	orig := marshal(t, h.s.Stack())

	st := h.s.Stack().Clone()
	snow := stack.NewLayer("snow")
	snow.Tint = stack.Color{0xf2, 0xf4, 0xf8}
	snow.Rules = []stack.Rule{{Input: stack.InputHeight, Min: stack.F(12), Softness: 1, Jitter: 2}}
	st.AddLayer(snow)
	if err := h.s.Apply("Add layer snow", st); err != nil {
		t.Fatal(err)
	}
	base := h.s.Stack()
	for k := 0; k <= 10; k++ {
		d := base.Clone()
		d.Layers[2].Rules[0].Min = stack.F(12 - 0.5*float64(k))
		if err := h.s.Drag("snow: min", d); err != nil {
			t.Fatal(err)
		}
	}
	h.s.EndDrag()
	if err := h.s.NewMask("valley"); err != nil {
		t.Fatal(err)
	}
	st = h.s.Stack().Clone()
	st.Layers[2].Rules = append(st.Layers[2].Rules, stack.Rule{Input: stack.InputMask, Channel: "valley", Min: stack.F(0.5), Softness: 0.05, Invert: true})
	if err := h.s.Apply("snow: mask rule", st); err != nil {
		t.Fatal(err)
	}
	if err := h.s.BeginStroke(Brush{Target: "mask.valley", Radius: 300, Strength: 1, Falloff: 0.3}); err != nil {
		t.Fatal(err)
	}
	for x := -1500.0; x <= 1500; x += 100 {
		h.s.Stroke(x, 200)
	}
	h.s.EndStroke()
	st = h.s.Stack().Clone()
	trees := stack.NewPopulation("pines")
	trees.Density, trees.Seed, trees.Mesh = 0.002, 3, stack.MeshTree
	trees.Rules = []stack.Rule{{Input: stack.InputLayer, Layer: "sand", Min: stack.F(0.5), Softness: 0.1}}
	st.Populations = append(st.Populations, trees)
	if err := h.s.Apply("Add population pines", st); err != nil {
		t.Fatal(err)
	}
	final := h.waitFrame(h.s.Version())
	finalYAML := marshal(t, h.s.Stack())
	count := func(name string) int {
		for _, p := range h.s.Status().Instances {
			if p.Name == name {
				return p.Count
			}
		}
		return -1
	}
	if count("pines") <= 0 {
		t.Fatalf("no pines placed: %+v", h.s.Status().Instances)
	}

	steps := 0
	for h.s.Undo() {
		steps++
	}
	if steps != 6 || !bytes.Equal(marshal(t, h.s.Stack()), orig) || len(h.s.Channels()) != 0 {
		t.Fatalf("undo all: %d steps, channels %v, stack\n%s", steps, h.s.Channels(), marshal(t, h.s.Stack()))
	}
	h.waitFrame(h.s.Version())
	for h.s.Redo() {
	}
	if !bytes.Equal(marshal(t, h.s.Stack()), finalYAML) {
		t.Fatalf("redo all left\n%s", marshal(t, h.s.Stack()))
	}
	again := h.waitFrame(h.s.Version())
	if d := diffPixels(final.Image, again.Image); d != 0 {
		t.Errorf("after undo all and redo all, %d pixels differ from before", d)
	}

	path := t.TempDir() + "/sitting.terrainData"
	if err := h.s.SaveAs(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	if probs := bake.Validate(path); len(probs) > 0 {
		t.Fatalf("validate: %v", probs)
	}
	h2 := newHarness(t, Options{Evaluator: CPU})
	if err := h2.s.OpenContainer(ctx, path); err != nil {
		t.Fatal(err)
	}
	reopened := h2.waitFrame(h2.s.Version())
	if !bytes.Equal(marshal(t, h2.s.Stack()), finalYAML) {
		t.Errorf("reopened stack\n%s\nwant\n%s", marshal(t, h2.s.Stack()), finalYAML)
	}
	if len(h2.s.Channels()) != 1 || h2.s.Channels()[0] != "mask.valley" {
		t.Errorf("reopened channels %v", h2.s.Channels())
	}
	h2.s.SetCamera(h.s.Camera(), false)
	reopened = h2.waitFrame(h2.s.Version())
	if d := diffPixels(again.Image, reopened.Image); d > len(again.Image.Pix)/4/1000 {
		t.Errorf("the reopened landscape draws %d pixels differently", d)
	}
}

// The mask overlay shows a painted mask where it is painted, and follows the strokes and their
// undo: undone, the unpainted mask tints nothing.
func TestMaskOverlay(t *testing.T) {
	h := newHarness(t, Options{Evaluator: CPU})
	ctx := context.Background()
	if err := h.s.OpenSampleSized(ctx, 96, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.s.NewMask("valley"); err != nil {
		t.Fatal(err)
	}
	plain := h.waitFrame(h.s.Version()).Image
	h.s.SetOverlay(Overlay{Mode: viewport.OverlayDensity, Channel: "mask.valley"})
	if err := h.s.BeginStroke(Brush{Target: "mask.valley", Radius: 500, Strength: 1, Falloff: 0.5}); err != nil {
		t.Fatal(err)
	}
	h.s.Stroke(0, 0)
	m := h.mark()
	h.s.EndStroke()
	painted := h.frameAfter(m).Image
	if n := diffPixels(plain, painted); n < 100 {
		t.Errorf("the painted mask shows in %d pixels", n)
	}
	m = h.mark()
	h.s.Undo()
	if n := diffPixels(plain, h.frameAfter(m).Image); n != 0 {
		t.Errorf("after undo the overlay still changes %d pixels", n)
	}
}
