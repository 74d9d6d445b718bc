package ui

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"strata/session"
)

// The three sculpt tools are on the toolbar (and their keys choose them); a drag through the
// viewport's mouse handler with the raise tool raises the ground under it, Ctrl+drag lowers it,
// and each stroke is one undo step named for its tool.
func TestSculptToolsThroughTheViewport(t *testing.T) {
	ed := newTestEditor(t)
	for _, tl := range []Tool{ToolRaise, ToolSmooth, ToolFlatten} {
		b := ed.tools.toolBtns[tl]
		if b == nil {
			t.Fatalf("no toolbar button for tool %d", tl)
		}
		b.OnTapped()
		if ed.tool != tl || b.Importance != widget.HighImportance {
			t.Errorf("tapping tool %d's button: tool %d, importance %v", tl, ed.tool, b.Importance)
		}
	}
	want := map[Tool]session.SculptMode{ToolRaise: session.SculptRaise, ToolSmooth: session.SculptSmooth, ToolFlatten: session.SculptFlatten}
	for tl, m := range want {
		ed.setTool(tl)
		if b, err := ed.currentBrush(); err != nil || b.Sculpt != m {
			t.Errorf("tool %d: brush %+v, %v", tl, b, err)
		}
	}

	ed.setTool(ToolRaise)
	ed.brush.Radius, ed.brush.Strength = 400, 1
	v := ed.view
	v.Resize(fyne.NewSize(160, 100))
	centre := fyne.NewPos(80, 50)
	hit, ok := v.pick(v.uv(centre))
	if !ok {
		t.Fatal("nothing under the viewport's centre")
	}
	height := func() float64 {
		var p session.Probe
		waitFor(t, func() bool { p = ed.s.ProbeAt(hit.X, hit.Z); return p.OK })
		return p.Height
	}
	h0 := height()
	drag := func(mods fyne.KeyModifier) {
		ev := &desktop.MouseEvent{Button: desktop.MouseButtonPrimary, Modifier: mods}
		ev.Position = centre
		v.MouseDown(ev)
		ev.Position = centre.AddXY(6, 0)
		v.MouseMoved(ev)
		ev.Position = centre
		v.MouseMoved(ev)
		v.MouseUp(ev)
	}
	drag(0)
	if got := ed.s.UndoLabel(); got != "Raise ground" {
		t.Fatalf("after a raise drag the undo step is %q", got)
	}
	var h1 float64
	waitFor(t, func() bool { h1 = height(); return h1 > h0+1 })

	drag(fyne.KeyModifierControl)
	if got := ed.s.UndoLabel(); got != "Lower ground" {
		t.Fatalf("after a Ctrl+drag the undo step is %q", got)
	}
	waitFor(t, func() bool { return height() < h1-1 })

	if !ed.s.Undo() || !ed.s.Undo() {
		t.Fatal("nothing to undo")
	}
	waitFor(t, func() bool { return height() == h0 })
}

// The set-height, terrace, noise and stamp tools: a button and a key each, their parameters in
// the brush panel; a drag with each sculpts one undo step named for it; a typed height is reached
// at full strength; Shift+drag with raise lowers; Shift+click with flatten picks the level
// without sculpting and the label beside the ring shows it; a stamp is one step per click and
// Ctrl cuts it in.
func TestSculptNewToolsThroughTheViewport(t *testing.T) {
	ed := newTestEditor(t)
	keys := map[rune]Tool{'r': ToolRaise, 's': ToolSmooth, 'l': ToolFlatten, 'h': ToolSetHeight, 't': ToolTerrace, 'n': ToolNoise, 'p': ToolStamp}
	for r, tl := range keys {
		ed.setTool(ToolCamera)
		ed.win.Canvas().OnTypedRune()(r)
		if ed.tool != tl {
			t.Errorf("key %q chose tool %d, want %d", r, ed.tool, tl)
		}
		if ed.tools.toolBtns[tl] == nil {
			t.Errorf("no toolbar button for tool %d", tl)
		}
	}
	panel := map[Tool][]*numField{ToolSetHeight: {ed.tools.setHeight}, ToolTerrace: {ed.tools.step, ed.tools.sharpness},
		ToolNoise: {ed.tools.amplitude, ed.tools.featureSize, ed.tools.seed}, ToolStamp: {ed.tools.angle, ed.tools.stampHeight}}
	for tl, fields := range panel {
		ed.setTool(tl)
		for _, f := range fields {
			found := false
			for _, o := range ed.tools.sculptRow.Objects {
				found = found || o == f.box
			}
			if !found {
				t.Errorf("tool %d: the field %q is not in the brush panel", tl, f.label.Text)
			}
		}
	}

	ed.brush.Radius, ed.brush.Strength, ed.brush.Falloff = 400, 1, 0
	v := ed.view
	v.Resize(fyne.NewSize(160, 100))
	centre := fyne.NewPos(80, 50)
	hit, ok := v.pick(v.uv(centre))
	if !ok {
		t.Fatal("nothing under the viewport's centre")
	}
	height := func() float64 {
		var p session.Probe
		waitFor(t, func() bool { p = ed.s.ProbeAt(hit.X, hit.Z); return p.OK })
		return p.Height
	}
	drag := func(mods fyne.KeyModifier) {
		ev := &desktop.MouseEvent{Button: desktop.MouseButtonPrimary, Modifier: mods}
		ev.Position = centre
		v.MouseDown(ev)
		ev.Position = centre.AddXY(6, 0)
		v.MouseMoved(ev)
		ev.Position = centre
		v.MouseMoved(ev)
		v.MouseUp(ev)
	}
	steps := 0
	expect := func(label string) {
		t.Helper()
		steps++
		if got := ed.s.UndoLabel(); got != label {
			t.Fatalf("the undo step is %q, want %q", got, label)
		}
	}

	// Set height: the typed height, reached at full strength.
	ed.setTool(ToolSetHeight)
	ed.tools.setHeight.submit("-3.5")
	if ed.brush.Height != -3.5 {
		t.Fatalf("typing -3.5 set the height %v", ed.brush.Height)
	}
	drag(0)
	expect("Set ground height")
	waitFor(t, func() bool { return math.Abs(height()+3.5) < 1e-3 })

	// Shift+click with flatten picks the level: no step, the label shows it.
	ed.setTool(ToolFlatten)
	h0 := -3.5
	waitFor(t, func() bool { h, ok := v.pick(v.uv(centre)); return ok && math.Abs(h.Height-h0) < 1e-3 }) // the viewport's ground too
	v.MouseDown(&desktop.MouseEvent{Button: desktop.MouseButtonPrimary, Modifier: fyne.KeyModifierShift, PointEvent: fyne.PointEvent{Position: centre}})
	v.MouseUp(&desktop.MouseEvent{Button: desktop.MouseButtonPrimary, PointEvent: fyne.PointEvent{Position: centre}})
	if !ed.hasFlatLevel || math.Abs(ed.flatLevel-h0) > 0.05 {
		t.Fatalf("Shift+click picked %v (%v), the ground is at %v", ed.flatLevel, ed.hasFlatLevel, h0)
	}
	if got := ed.s.UndoLabel(); got != "Set ground height" {
		t.Fatalf("Shift+click with flatten made the step %q", got)
	}
	if want := fmt.Sprintf("flatten to %.2f m", ed.flatLevel); !v.level.Visible() || !strings.Contains(v.level.Text, want) {
		t.Errorf("the level label shows %q (visible %v), want %q", v.level.Text, v.level.Visible(), want)
	}
	if !strings.Contains(ed.tools.levelInfo.Text, fmt.Sprintf("%.2f m", ed.flatLevel)) {
		t.Errorf("the brush panel says %q", ed.tools.levelInfo.Text)
	}
	if lv, on := ed.s.BrushLevel(); !on || lv != ed.flatLevel {
		t.Errorf("the ring shows level %v (on %v), want the picked %v", lv, on, ed.flatLevel)
	}
	// The label is drawn: the window's picture differs with it hidden.
	shown := ed.win.Canvas().Capture()
	v.level.Hide()
	hidden := ed.win.Canvas().Capture()
	v.level.Show()
	if bytes.Equal(shown.(*image.NRGBA).Pix, hidden.(*image.NRGBA).Pix) {
		t.Error("the window looks the same with and without the level label")
	}
	ed.setTool(ToolTerrace)
	if v.level.Visible() {
		t.Error("the level label stays with the terrace tool")
	}
	if _, on := ed.s.BrushLevel(); on {
		t.Error("the ring keeps showing a level with the terrace tool")
	}

	// Shift+drag with raise lowers.
	ed.setTool(ToolRaise)
	drag(fyne.KeyModifierShift)
	expect("Lower ground")
	waitFor(t, func() bool { return height() < -4 })

	ed.setTool(ToolTerrace)
	ed.brush.Step, ed.brush.Sharpness = 2, 1
	drag(0)
	expect("Terrace ground")
	ed.setTool(ToolNoise)
	drag(0)
	expect("Add noise to ground")

	// Stamp: refused without an image; one step per click, Ctrl cuts it in.
	ed.setTool(ToolStamp)
	if _, err := ed.currentBrush(); err == nil || !strings.Contains(err.Error(), "stamp image") {
		t.Errorf("a stamp without an image: %v", err)
	}
	img := image.NewGray16(image.Rect(0, 0, 8, 8))
	for k := range img.Pix {
		img.Pix[k] = 0xff
	}
	path := filepath.Join(t.TempDir(), "plateau.png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ed.loadStamp(path); err != nil {
		t.Fatal(err)
	}
	if ed.tools.stampName.Text != "plateau.png" {
		t.Errorf("the panel names the stamp %q", ed.tools.stampName.Text)
	}
	// A known ground under the stamp first (the noise stroke may still be flowing in).
	ed.setTool(ToolSetHeight)
	ed.brush.Height = 1
	drag(0)
	expect("Set ground height")
	waitFor(t, func() bool { return math.Abs(height()-1) < 1e-3 })
	ed.setTool(ToolStamp)
	ed.brush.StampHeight = 10
	before := 1.0
	drag(0)
	expect("Stamp ground")
	waitFor(t, func() bool { return math.Abs(height()-(before+10)) < 1e-3 })
	drag(fyne.KeyModifierControl)
	expect("Stamp into ground")
	waitFor(t, func() bool { return math.Abs(height()-before) < 1e-3 })

	for range steps {
		if !ed.s.Undo() {
			t.Fatal("nothing to undo")
		}
	}
	if ed.s.UndoLabel() != "" {
		t.Errorf("after undoing every stroke the next step is %q", ed.s.UndoLabel())
	}
}
