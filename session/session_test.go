package session

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"strata/bake"
	"strata/landscape"
	"strata/stack"
	"strata/viewport"
)

// Edit → frame, end to end: a rule change reaches a new frame that differs where the ground
// does, undo brings back the stack byte for byte and the picture pixel for pixel, redo the edit.
func TestEditToFrame(t *testing.T) {
	for _, ev := range []Evaluator{CPU, GPU} {
		t.Run(ev.String(), func(t *testing.T) {
			h, first := openSample(t, Options{Evaluator: ev}, 128, nil, true)
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

// The weights the session shows are the bake's: what it saves validates, reopens to the same
// stack and channels, and equals `strata bake`'s weights for that stack and field.
func TestSaveReopen(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: GPU}, 96, nil, false)
	ctx := context.Background()
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
	l, err := landscape.Open(path)
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
	ref := &landscape.Landscape{Stack: l.Stack, Field: l.Field}
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

// The sitting, through the session the window drives: open the sample, add a snow layer
// with a height rule and jitter (dragged into place), paint a mask that takes the snow out of a
// valley, add trees limited to sand; undo it all, redo it all; save; reopen in a fresh session
// and find it as left; the container validates.
func TestArtistSitting(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: CPU}, 128, nil, false)
	ctx := context.Background()
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
	if h.instances("pines") <= 0 {
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
	if probs := landscape.Validate(path); len(probs) > 0 {
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

// When the history drops its oldest steps to stay within its memory bound, undoing every step
// left does not reach the state the landscape was opened (or saved) in: the document stays
// modified, so closing it still asks to save. Saved with no step left, undo and redo come back
// to that state exactly.
func TestTrimmedHistoryStaysModified(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: CPU, HistoryBytes: 1}, 64, nil, false)
	edit := func(min float64) {
		t.Helper()
		st := h.s.Stack().Clone()
		st.Layers[1].Rules[0].Min = stack.F(min)
		if err := h.s.Apply("rock: min slope", st); err != nil {
			t.Fatal(err)
		}
	}
	edit(10)
	edit(12) // the bound keeps one step: the first is dropped
	if !h.s.Undo() || h.s.Undo() {
		t.Fatal("want exactly one step to undo")
	}
	if !h.s.Modified() {
		t.Error("undoing the steps kept marks the document unmodified, though a dropped step is still in it")
	}
	path := filepath.Join(t.TempDir(), "t.terrainData")
	if err := h.s.SaveAs(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	if !h.s.Redo() || !h.s.Modified() {
		t.Fatal("redo after the save: want a modified document")
	}
	if !h.s.Undo() || h.s.Modified() {
		t.Error("undo back to the saved state: want it unmodified")
	}
}

// MaskChannel is the one check of a new mask's name, for NewMask and the New mask form: the
// prefix is optional, and an empty name, a character a channel may not hold or an existing mask
// is refused — by NewMask too, which then changes nothing.
func TestMaskChannel(t *testing.T) {
	h, _ := openSample(t, Options{Evaluator: CPU}, 64, nil, false)
	if err := h.s.NewMask("valley"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{" ridge ", "mask.ridge"} {
		if got, err := h.s.MaskChannel(name); got != "mask.ridge" || err != nil {
			t.Errorf("MaskChannel(%q) = %q, %v", name, got, err)
		}
	}
	for _, name := range []string{"", "mask.", "a b", "valley", "mask.valley"} {
		if _, err := h.s.MaskChannel(name); err == nil {
			t.Errorf("MaskChannel(%q) accepted", name)
		}
		if err := h.s.NewMask(name); err == nil {
			t.Errorf("NewMask(%q) accepted", name)
		}
	}
	if got := h.s.Channels(); len(got) != 1 || got[0] != "mask.valley" {
		t.Errorf("channels %v, want only mask.valley", got)
	}
}
