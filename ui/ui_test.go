package ui

import (
	"bytes"
	"context"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"strata/internal/testgpu"
	"strata/session"
	"strata/stack"
	"strata/viewport"
)

// newTestEditor builds the editor on Fyne's headless test app over a real session (lavapipe),
// with a small dunes field open.
func newTestEditor(t *testing.T) *editor {
	t.Helper()
	a := test.NewTempApp(t)
	s, err := session.New(context.Background(), session.Options{Device: testgpu.Device(t), Width: 160, Height: 100, Evaluator: session.CPU})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ed := newEditor(a, s, Options{Log: io.Discard})
	if err := s.OpenSampleSized(context.Background(), 64, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return ed.s.Stack() != nil && len(ed.layers.list) == 2 })
	return ed
}

// waitFor polls cond (events reach the panels from the session's goroutines).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func yaml(t *testing.T, s *stack.Stack) []byte {
	t.Helper()
	b, err := stack.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Adding, duplicating, moving and deleting layers from the panel change the stack; one undo per
// step brings it back exactly, and the Edit menu names the step.
func TestLayersPanel(t *testing.T) {
	ed := newTestEditor(t)
	orig := yaml(t, ed.s.Stack())
	test.Tap(ed.layers.add)
	if n := len(ed.s.Stack().Layers); n != 3 {
		t.Fatalf("after Add layer the stack has %d layers", n)
	}
	if ed.selLayer != 2 || len(ed.layers.list) != 3 {
		t.Errorf("the new layer is not selected and listed: selected %d, %d rows", ed.selLayer, len(ed.layers.list))
	}
	if ed.menus.undo.Label != "Undo Add layer" {
		t.Errorf("Edit menu says %q", ed.menus.undo.Label)
	}
	test.Tap(ed.layers.dup)
	test.Tap(ed.layers.down)
	st := ed.s.Stack()
	if len(st.Layers) != 4 || st.Layers[2].Name != "layer copy" || st.Layers[3].Name != "layer" {
		t.Fatalf("after duplicate and move down: %v", layerNames(st))
	}
	test.Tap(ed.layers.del)
	if len(ed.s.Stack().Layers) != 3 {
		t.Fatalf("delete left %v", layerNames(ed.s.Stack()))
	}
	for k := 0; k < 4; k++ {
		ed.menus.undo.Action()
	}
	if got := yaml(t, ed.s.Stack()); !bytes.Equal(got, orig) {
		t.Fatalf("four undos left\n%s\nwant\n%s", got, orig)
	}
	ed.menus.redo.Action()
	if len(ed.s.Stack().Layers) != 3 {
		t.Errorf("redo: %v", layerNames(ed.s.Stack()))
	}
	// Dragging the top row's grip down one row moves that layer down the stack.
	top := ed.layers.list[0]
	name := ed.s.Stack().Layers[top.index].Name
	h := top.Size().Height
	top.grip.Dragged(&fyne.DragEvent{Dragged: fyne.NewDelta(0, h*1.2)})
	top.grip.DragEnd()
	if st := ed.s.Stack(); st.Layers[len(st.Layers)-2].Name != name {
		t.Errorf("dragging %q's grip down one row left %v", name, layerNames(st))
	}
	// The title names the landscape and says it changed.
	if title := ed.win.Title(); title != "Strata — dunes *" {
		t.Errorf("title %q", title)
	}
}

func layerNames(st *stack.Stack) []string {
	var n []string
	for _, l := range st.Layers {
		n = append(n, l.Name)
	}
	return n
}

// The rule editor: a typed value changes the rule; a value that is not a number, or out of
// range, shows an error and changes nothing; Add rule adds one; a slider drag is one undo step.
func TestRuleEditor(t *testing.T) {
	ed := newTestEditor(t)
	if ed.selLayer != 1 || len(ed.layer.rules.cards) != 1 {
		t.Fatalf("rock should be selected with its one rule: selected %d, %d cards", ed.selLayer, len(ed.layer.rules.cards))
	}
	card := ed.layer.rules.cards[0]
	if card.input.Selected != "slope (°)" || card.min.unit.Text != "°" {
		t.Errorf("input %q unit %q", card.input.Selected, card.min.unit.Text)
	}
	before := yaml(t, ed.s.Stack())
	enter := func(f *numField, text string) {
		f.entry.SetText(text)
		f.entry.OnSubmitted(text)
	}
	enter(card.min, "abc")
	if !card.min.errMsg.Visible() || card.min.errMsg.Text == "" {
		t.Error("a non-numeric entry shows no error")
	}
	if !bytes.Equal(yaml(t, ed.s.Stack()), before) {
		t.Error("a non-numeric entry changed the stack")
	}
	enter(ed.layer.strength, "2")
	if !ed.layer.strength.errMsg.Visible() {
		t.Error("strength 2 (range 0..1) shows no error")
	}
	if !bytes.Equal(yaml(t, ed.s.Stack()), before) {
		t.Error("an out-of-range entry changed the stack")
	}
	enter(card.min, "25")
	if got := *ed.s.Stack().Layers[1].Rules[0].Min; got != 25 {
		t.Fatalf("min after typing 25: %v", got)
	}
	if card.min.errMsg.Visible() {
		t.Error("the error stayed after a good value")
	}
	// Open max, then close it again: max comes and goes.
	test.Tap(card.max.open) // it was open: now closed, a max appears
	if ed.s.Stack().Layers[1].Rules[0].Max == nil {
		t.Fatal("unticking open gave no max")
	}
	test.Tap(card.max.open)
	if ed.s.Stack().Layers[1].Rules[0].Max != nil {
		t.Fatal("ticking open kept the max")
	}
	// A drag: many previews, one step.
	undoBefore := ed.s.UndoLabel()
	sl := card.soft.slider
	size := sl.Size()
	if size.Width < 20 {
		t.Fatalf("the softness slider is %v wide", size)
	}
	for _, frac := range []float32{0.2, 0.3, 0.4, 0.5, 0.6} {
		sl.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(size.Width*frac, size.Height/2)}})
	}
	sl.DragEnd()
	if got := ed.s.Stack().Layers[1].Rules[0].Softness; math.Abs(got-sl.Value) > 1e-6 || got < 5 {
		t.Errorf("softness after the drag %v, the slider shows %v", got, sl.Value)
	}
	if ed.s.UndoLabel() != "rock: softness" {
		t.Errorf("the drag's step is %q", ed.s.UndoLabel())
	}
	ed.s.Undo()
	if ed.s.UndoLabel() != undoBefore {
		t.Errorf("one undo did not take the whole drag back: now %q", ed.s.UndoLabel())
	}
	test.Tap(ed.layer.rules.add)
	if n := len(ed.s.Stack().Layers[1].Rules); n != 2 {
		t.Fatalf("Add rule: %d rules", n)
	}
	waitFor(t, func() bool { return len(ed.layer.rules.cards) == 2 })
	test.Tap(ed.layer.rules.cards[1].del)
	if n := len(ed.s.Stack().Layers[1].Rules); n != 1 {
		t.Errorf("delete rule: %d rules", n)
	}
}

// A population limited to a layer: added from the panel, a layer-weight rule picks the layer.
func TestPopulationsPanel(t *testing.T) {
	ed := newTestEditor(t)
	n0 := len(ed.s.Stack().Populations)
	test.Tap(ed.pops.add)
	st := ed.s.Stack()
	if len(st.Populations) != n0+1 || ed.selPop != n0 {
		t.Fatalf("add population: %d populations, selected %d", len(st.Populations), ed.selPop)
	}
	test.Tap(ed.pops.rules.add)
	waitFor(t, func() bool { return len(ed.pops.rules.cards) == 1 })
	c := ed.pops.rules.cards[0]
	c.input.SetSelected(inputLabel(stack.InputLayer))
	r := ed.s.Stack().Populations[n0].Rules[0]
	if r.Input != stack.InputLayer || r.Layer != "sand" {
		t.Fatalf("layer rule: %+v", r)
	}
	waitFor(t, func() bool { return len(ed.pops.rules.cards) == 1 && ed.pops.rules.cards[0].chanel.Visible() })
	ed.pops.rules.cards[0].chanel.SetSelected("rock")
	if got := ed.s.Stack().Populations[n0].Rules[0].Layer; got != "rock" {
		t.Errorf("layer picker chose %q", got)
	}
	ed.pops.density.entry.SetText("0.002")
	ed.pops.density.entry.OnSubmitted("0.002")
	if got := ed.s.Stack().Populations[n0].Density; got != 0.002 {
		t.Errorf("density %v", got)
	}
}

// A new mask from the Field panel is at once a brush target and a rule input.
func TestNewMaskIsUsable(t *testing.T) {
	ed := newTestEditor(t)
	if err := ed.s.NewMask("valley"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(ed.tools.target.Options) == 1 })
	if ed.tools.target.Options[0] != "valley" {
		t.Errorf("brush targets %v", ed.tools.target.Options)
	}
	ed.tool = ToolPaint
	b, err := ed.currentBrush()
	if err != nil || b.Target != "mask.valley" {
		t.Errorf("brush %+v, %v", b, err)
	}
	if err := ed.edit("mask rule", func(st *stack.Stack) error {
		st.Layers[1].Rules = append(st.Layers[1].Rules, stack.Rule{Input: stack.InputMask, Channel: "valley", Max: stack.F(0.5)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Undoing a mask's creation takes it out of the brush's masks: the brush goes to another mask (or
// none) rather than keep painting one that no longer exists, and redo brings it back as a choice.
func TestUndoneMaskLeavesTheBrush(t *testing.T) {
	ed := newTestEditor(t)
	// A new mask is announced from a goroutine of its own, and the test app runs the editor's
	// handler there: wait for each announcement to be handled (this subscriber runs after the
	// editor's) before the next, so two refreshes never run at once.
	handled := make(chan struct{}, 16)
	ed.s.Subscribe(func(e session.Event) {
		if strings.HasPrefix(e.Message, "New mask") {
			handled <- struct{}{}
		}
	})
	for _, m := range []string{"valley", "ridge"} {
		if err := ed.s.NewMask(m); err != nil {
			t.Fatal(err)
		}
		select {
		case <-handled:
		case <-time.After(20 * time.Second):
			t.Fatal("the new mask was not announced")
		}
	}
	waitFor(t, func() bool { return len(ed.tools.target.Options) == 2 })
	ed.tools.target.SetSelected("ridge")
	if ed.brush.Target != "mask.ridge" {
		t.Fatalf("brush target %q after choosing ridge", ed.brush.Target)
	}
	if !ed.s.Undo() { // ridge's creation
		t.Fatal("nothing to undo")
	}
	waitFor(t, func() bool { return len(ed.tools.target.Options) == 1 })
	if ed.brush.Target != "mask.valley" || ed.tools.target.Selected != "valley" {
		t.Errorf("after undoing ridge: brush %q, shown %q; want valley", ed.brush.Target, ed.tools.target.Selected)
	}
	if !ed.s.Undo() { // valley's
		t.Fatal("nothing to undo")
	}
	waitFor(t, func() bool { return len(ed.tools.target.Options) == 0 })
	if ed.brush.Target != "" || ed.tools.target.Selected != "" {
		t.Errorf("with no masks: brush %q, shown %q", ed.brush.Target, ed.tools.target.Selected)
	}
	if !ed.s.Redo() {
		t.Fatal("nothing to redo")
	}
	waitFor(t, func() bool { return len(ed.tools.target.Options) == 1 })
	if ed.brush.Target != "mask.valley" {
		t.Errorf("after redo: brush %q", ed.brush.Target)
	}
}

// The form dialogs check their fields as they are typed: a dialog with a bad value keeps its
// confirm button off and says why under the field, so nothing typed is lost to an error banner.
func TestFormValidators(t *testing.T) {
	cases := []struct {
		name string
		v    func(string) error
		ok   []string
		bad  []string
	}{
		{"size", numberIn("size", 0, math.Inf(1), false), []string{"2000", " 0.5 "}, []string{"", "0", "-3", "x", "NaN", "Inf"}},
		{"texels", integerIn("texels", 2, 16384), []string{"2", "1024", "16384"}, []string{"1", "16385", "1.5", "", "many"}},
		{"height", numberIn("height", math.Inf(-1), math.Inf(1), true), []string{"0", "-12.5", "8848"}, []string{"", "high", "NaN"}},
		{"size pair", optionalPair("size", "x", false), []string{"", "4000x4000", "288000 X 218400"}, []string{"4000", "4000x", "0x10", "-1x5", "ax b"}},
		{"height range", optionalPair("height range", ",", true), []string{"", "0,1000", "-50, 50"}, []string{"0-1000", "1000", "a,b"}},
	}
	for _, c := range cases {
		for _, s := range c.ok {
			if err := c.v(s); err != nil {
				t.Errorf("%s %q refused: %v", c.name, s, err)
			}
		}
		for _, s := range c.bad {
			if err := c.v(s); err == nil {
				t.Errorf("%s %q accepted", c.name, s)
			} else if !strings.HasPrefix(err.Error(), strings.Fields(c.name)[0]) {
				t.Errorf("%s %q: %v does not name the field", c.name, s, err)
			}
		}
	}
}

// The status bar says what evaluation is doing: the first pass after an open, a later pass's
// figures, and whether the picture is still refining.
func TestStatusBarText(t *testing.T) {
	ed := newTestEditor(t)
	b := ed.status
	b.setStatus(session.Status{Evaluator: "Go reference", Refining: true})
	if got := b.eval.Text; got != "evaluating the landscape…" || !b.refining.Visible() {
		t.Errorf("opened: %q, activity shown %v", got, b.refining.Visible())
	}
	b.setStatus(session.Status{Evaluator: "Go reference"}) // baked weights: nothing to evaluate
	if got := b.eval.Text; got != "" || b.refining.Visible() {
		t.Errorf("baked: %q, activity shown %v", got, b.refining.Visible())
	}
	b.setStatus(session.Status{Last: session.Pass{Duration: 12500 * time.Microsecond, Tiles: 4, Scatter: time.Millisecond}, Refining: true})
	if got := b.eval.Text; got != "last evaluation 12.5 ms, 4 tiles, full + scatter 1.0 ms — refining…" {
		t.Errorf("refining: %q", got)
	}
	b.setStatus(session.Status{Last: session.Pass{Duration: 3 * time.Millisecond, Tiles: 1, Draft: true}})
	if got := b.eval.Text; got != "last evaluation 3.0 ms, 1 tile, draft" || b.refining.Visible() {
		t.Errorf("settled: %q, activity shown %v", got, b.refining.Visible())
	}
	b.setStatus(session.Status{Last: session.Pass{Duration: 8 * time.Millisecond, Pages: 6, Draft: true}, Refining: true})
	if got := b.eval.Text; got != "last evaluation 8.0 ms, 6 pages, draft — refining…" {
		t.Errorf("view pages: %q", got)
	}
	b.setStatus(session.Status{Last: session.Pass{Duration: 9 * time.Millisecond, Pages: 1, Tiles: 3}})
	if got := b.eval.Text; got != "last evaluation 9.0 ms, 1 page + 3 tiles, full" {
		t.Errorf("pages and tiles: %q", got)
	}
	b.setStatus(session.Status{Reading: "reading dem.png… 45%"})
	if got := b.eval.Text; got != "reading dem.png… 45%" || !b.refining.Visible() {
		t.Errorf("reading: %q, activity shown %v", got, b.refining.Visible())
	}
}

// An aspect rule from the picker: it is offered beside slope, starts as the north-facing quarter
// (both edges: an aspect band is an arc of the compass), its unit is degrees, and opening one edge
// opens both (the whole compass) while closing one gives both back; the probe names the way the
// ground faces.
func TestAspectRuleFromPicker(t *testing.T) {
	ed := newTestEditor(t)
	card := ed.layer.rules.cards[0]
	opts := card.input.Options
	if len(opts) < 3 || opts[1] != inputLabel(stack.InputSlope) || opts[2] != inputLabel(stack.InputAspect) {
		t.Fatalf("the picker offers %q", opts)
	}
	card.input.SetSelected(inputLabel(stack.InputAspect))
	r := ed.s.Stack().Layers[1].Rules[0]
	if r.Input != stack.InputAspect || r.Min == nil || r.Max == nil || *r.Min != 315 || *r.Max != 45 {
		t.Fatalf("aspect rule from the picker: %+v", r)
	}
	if ps := stack.Errors(stack.Validate(ed.s.Stack())); len(ps) != 0 {
		t.Fatalf("the stack is invalid: %v", ps)
	}
	waitFor(t, func() bool { return ed.layer.rules.cards[0].min.unit.Text == "°" })
	card = ed.layer.rules.cards[0]
	test.Tap(card.max.open) // open: the whole compass
	if r := ed.s.Stack().Layers[1].Rules[0]; r.Min != nil || r.Max != nil {
		t.Fatalf("opening max left %v..%v", r.Min, r.Max)
	}
	waitFor(t, func() bool { return ed.layer.rules.cards[0].min.open.Checked })
	test.Tap(ed.layer.rules.cards[0].min.open) // closed again: both edges back
	if r := ed.s.Stack().Layers[1].Rules[0]; r.Min == nil || r.Max == nil {
		t.Fatalf("closing min left %v..%v", r.Min, r.Max)
	}
	var p session.Probe
	waitFor(t, func() bool { p = ed.s.ProbeAt(10, -20); return p.OK })
	if !p.Flat && (p.Aspect < 0 || p.Aspect > 360) {
		t.Errorf("probe aspect %v", p.Aspect)
	}
	ed.status.setProbe(p)
	if txt := ed.status.probe.Text; !strings.Contains(txt, "aspect ") {
		t.Errorf("the probe reads %q", txt)
	}
	for _, tc := range []struct {
		deg  float64
		want string
	}{{0, "N"}, {22.4, "N"}, {22.6, "NE"}, {90, "E"}, {200, "S"}, {292, "W"}, {337.6, "N"}, {359.9, "N"}} {
		if got := compassPoint(tc.deg); got != tc.want {
			t.Errorf("compassPoint(%v) = %q, want %q", tc.deg, got, tc.want)
		}
	}
}

// The overlay menu offers Aspect after Curvature, and choosing it hands the session the aspect
// overlay.
func TestAspectOverlayFromMenu(t *testing.T) {
	ed := newTestEditor(t)
	opts := ed.tools.overlay.Options
	k := slices.Index(opts, ovAspect)
	if k < 0 || opts[k-1] != ovCurvature {
		t.Fatalf("the overlay menu offers %q", opts)
	}
	ed.tools.overlay.SetSelected(ovAspect)
	if m := ed.s.Overlay().Mode; m != viewport.OverlayAspect {
		t.Errorf("session overlay mode %v, want OverlayAspect", m)
	}
}

// The rule picker offers flow after curvature, labelled in its unit ("flow (log10 m²)"); picked,
// it starts as an open-above band inside the field's range of areas (log10 of a texel's area up
// to the whole field's), the sliders read "log10 m²", the stack stays valid, and once the flow is
// routed the probe shows it ("flow 10^… m²").
func TestFlowRuleFromPicker(t *testing.T) {
	ed := newTestEditor(t)
	card := ed.layer.rules.cards[0]
	opts := card.input.Options
	if len(opts) < 5 || opts[3] != inputLabel(stack.InputCurvature) || opts[4] != "flow (log10 m²)" {
		t.Fatalf("the picker offers %q", opts)
	}
	card.input.SetSelected("flow (log10 m²)")
	r := ed.s.Stack().Layers[1].Rules[0]
	rg := ed.s.RangeFor(stack.InputFlow, "")
	if r.Input != stack.InputFlow || r.Min == nil || r.Max != nil || *r.Min <= rg.Lo || *r.Min >= rg.Hi {
		t.Fatalf("flow rule from the picker: %+v (range %v)", r, rg)
	}
	fi := ed.s.Field()
	if rg.Lo > math.Log10(fi.Texel[0]*fi.Texel[1]) || rg.Hi < math.Log10(fi.Size[0]*fi.Size[1]) || rg.Unit != "log10 m²" {
		t.Fatalf("flow range %+v for texels %v of a %v field", rg, fi.Texel, fi.Size)
	}
	if ps := stack.Errors(stack.Validate(ed.s.Stack())); len(ps) != 0 {
		t.Fatalf("the stack is invalid: %v", ps)
	}
	waitFor(t, func() bool { return ed.layer.rules.cards[0].min.unit.Text == "log10 m²" })
	var p session.Probe
	waitFor(t, func() bool { p = ed.s.ProbeAt(10, -20); return p.OK && p.HasFlow })
	if p.Flow < math.Log10(fi.Texel[0]*fi.Texel[1])-1e-3 {
		t.Errorf("probe flow %v: less than a texel's own area", p.Flow)
	}
	ed.status.setProbe(p)
	if txt := ed.status.probe.Text; !strings.Contains(txt, "flow 10^") {
		t.Errorf("the probe reads %q", txt)
	}
}

// The overlay menu offers Flow after Aspect, and choosing it hands the session the flow overlay.
func TestFlowOverlayFromMenu(t *testing.T) {
	ed := newTestEditor(t)
	opts := ed.tools.overlay.Options
	k := slices.Index(opts, ovFlow)
	if k < 0 || opts[k-1] != ovAspect {
		t.Fatalf("the overlay menu offers %q", opts)
	}
	ed.tools.overlay.SetSelected(ovFlow)
	if m := ed.s.Overlay().Mode; m != viewport.OverlayFlow {
		t.Errorf("session overlay mode %v, want OverlayFlow", m)
	}
}
