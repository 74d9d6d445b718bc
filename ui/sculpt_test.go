package ui

import (
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
