package ui

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Fyne 2.7 has no tooltips, so the editor's controls are Fyne's widgets extended with one: the
// text shows after the pointer rests on the control for tipDelay and goes when it leaves.

const tipDelay = 600 * time.Millisecond

// tip is the tooltip state a control embeds.
type tip struct {
	text  string
	owner fyne.CanvasObject
	timer *time.Timer
	at    fyne.Position
}

func (t *tip) in(e *desktop.MouseEvent) {
	if t.text == "" {
		return
	}
	t.at = e.AbsolutePosition
	t.stop()
	t.timer = time.AfterFunc(tipDelay, func() { fyne.Do(t.show) })
}

func (t *tip) moved(e *desktop.MouseEvent) {
	t.at = e.AbsolutePosition
}

func (t *tip) out() {
	t.stop()
	if host.shown == t {
		host.hide()
	}
}

func (t *tip) stop() {
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
}

func (t *tip) show() { host.show(t) }

// tipHost draws the tooltip in a layer above the window's content. It is no pop-up: a Fyne
// pop-up is an overlay that takes the pointer, so the control under it would lose its hover at
// once and the tooltip would flicker; a label in a plain layer takes no events.
type tipHost struct {
	layer *fyne.Container
	bg    *canvas.Rectangle
	label *widget.Label
	shown *tip
}

var host tipHost

// newTipLayer makes the layer tooltips are drawn in; the editor stacks it over its content.
func newTipLayer() *fyne.Container {
	host.bg = canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	host.bg.StrokeColor = theme.Color(theme.ColorNameShadow)
	host.bg.StrokeWidth = 1
	host.bg.CornerRadius = 4
	host.label = widget.NewLabel("")
	host.label.Wrapping = fyne.TextWrapWord
	host.layer = container.NewWithoutLayout(host.bg, host.label)
	host.bg.Hide()
	host.label.Hide()
	return host.layer
}

func (h *tipHost) show(t *tip) {
	if h.layer == nil {
		return
	}
	h.shown = t
	plain := widget.NewLabel(t.text)
	w := fyne.Min(plain.MinSize().Width, 380)
	h.label.SetText(t.text)
	h.label.Resize(fyne.NewSize(w, plain.MinSize().Height))
	size := fyne.NewSize(w, h.label.MinSize().Height)
	h.label.Resize(size)
	at := t.at
	if app := fyne.CurrentApp(); app != nil {
		at = at.Subtract(app.Driver().AbsolutePositionForObject(h.layer))
	}
	pos := at.Add(fyne.NewPos(14, 22))
	area := h.layer.Size()
	if pos.X+size.Width > area.Width {
		pos.X = area.Width - size.Width - 4
	}
	if pos.Y+size.Height > area.Height {
		pos.Y = at.Y - size.Height - 8
	}
	pos = fyne.NewPos(fyne.Max(pos.X, 0), fyne.Max(pos.Y, 0))
	h.label.Move(pos)
	h.bg.Move(pos)
	h.bg.Resize(size)
	h.bg.Show()
	h.label.Show()
	h.layer.Refresh()
	go h.watch(t)
}

// watch hides the tip once its control no longer lies under the pointer (the panel scrolled, or
// the control went away) — hover events come only when the pointer moves.
func (h *tipHost) watch(t *tip) {
	for {
		time.Sleep(200 * time.Millisecond)
		gone := false
		fyne.DoAndWait(func() {
			if h.shown != t {
				gone = true
				return
			}
			app := fyne.CurrentApp()
			if app == nil {
				return
			}
			pos := app.Driver().AbsolutePositionForObject(t.owner)
			size := t.owner.Size()
			if !t.owner.Visible() || t.at.X < pos.X || t.at.Y < pos.Y || t.at.X > pos.X+size.Width || t.at.Y > pos.Y+size.Height {
				h.hide()
				gone = true
			}
		})
		if gone {
			return
		}
	}
}

func (h *tipHost) hide() {
	h.shown = nil
	if h.layer == nil {
		return
	}
	h.bg.Hide()
	h.label.Hide()
	h.layer.Refresh()
}

// tipButton is a button with a tooltip.
type tipButton struct {
	widget.Button
	tip
}

func newTipButton(label string, icon fyne.Resource, text string, tapped func()) *tipButton {
	b := &tipButton{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.tip.text, b.tip.owner = text, b
	b.ExtendBaseWidget(b)
	return b
}

func (b *tipButton) MouseIn(e *desktop.MouseEvent)    { b.Button.MouseIn(e); b.tip.in(e) }
func (b *tipButton) MouseMoved(e *desktop.MouseEvent) { b.Button.MouseMoved(e); b.tip.moved(e) }
func (b *tipButton) MouseOut()                        { b.Button.MouseOut(); b.tip.out() }
func (b *tipButton) Tapped(e *fyne.PointEvent)        { b.tip.out(); b.Button.Tapped(e) }

// tipCheck is a check box with a tooltip.
type tipCheck struct {
	widget.Check
	tip
}

func newTipCheck(label, text string, changed func(bool)) *tipCheck {
	c := &tipCheck{}
	c.Text, c.OnChanged = label, changed
	c.tip.text, c.tip.owner = text, c
	c.ExtendBaseWidget(c)
	return c
}

func (c *tipCheck) MouseIn(e *desktop.MouseEvent)    { c.Check.MouseIn(e); c.tip.in(e) }
func (c *tipCheck) MouseMoved(e *desktop.MouseEvent) { c.Check.MouseMoved(e); c.tip.moved(e) }
func (c *tipCheck) MouseOut()                        { c.Check.MouseOut(); c.tip.out() }

// tipSelect is a drop-down with a tooltip.
type tipSelect struct {
	widget.Select
	tip
}

func newTipSelect(options []string, text string, changed func(string)) *tipSelect {
	s := &tipSelect{}
	s.Options, s.OnChanged = options, changed
	s.PlaceHolder = "(choose)"
	s.tip.text, s.tip.owner = text, s
	s.ExtendBaseWidget(s)
	return s
}

func (s *tipSelect) MouseIn(e *desktop.MouseEvent)    { s.Select.MouseIn(e); s.tip.in(e) }
func (s *tipSelect) MouseMoved(e *desktop.MouseEvent) { s.Select.MouseMoved(e); s.tip.moved(e) }
func (s *tipSelect) MouseOut()                        { s.Select.MouseOut(); s.tip.out() }
func (s *tipSelect) Tapped(e *fyne.PointEvent)        { s.tip.out(); s.Select.Tapped(e) }

// tipSlider is a slider with a tooltip.
type tipSlider struct {
	widget.Slider
	tip
}

func newTipSlider(lo, hi float64, text string) *tipSlider {
	s := &tipSlider{}
	s.Min, s.Max, s.Step = lo, hi, (hi-lo)/1000
	s.Orientation = widget.Horizontal
	s.tip.text, s.tip.owner = text, s
	s.ExtendBaseWidget(s)
	return s
}

func (s *tipSlider) MouseIn(e *desktop.MouseEvent)    { s.Slider.MouseIn(e); s.tip.in(e) }
func (s *tipSlider) MouseMoved(e *desktop.MouseEvent) { s.Slider.MouseMoved(e); s.tip.moved(e) }
func (s *tipSlider) MouseOut()                        { s.Slider.MouseOut(); s.tip.out() }
func (s *tipSlider) Dragged(e *fyne.DragEvent)        { s.tip.out(); s.Slider.Dragged(e) }

// tipEntry is a text entry with a tooltip (Fyne's entry is not hoverable; this one is).
type tipEntry struct {
	widget.Entry
	tip
}

func newTipEntry(text string) *tipEntry {
	e := &tipEntry{}
	e.tip.text, e.tip.owner = text, e
	e.ExtendBaseWidget(e)
	return e
}

func (e *tipEntry) MouseIn(ev *desktop.MouseEvent)    { e.tip.in(ev) }
func (e *tipEntry) MouseMoved(ev *desktop.MouseEvent) { e.tip.moved(ev) }
func (e *tipEntry) MouseOut()                         { e.tip.out() }

var (
	_ desktop.Hoverable = (*tipButton)(nil)
	_ desktop.Hoverable = (*tipCheck)(nil)
	_ desktop.Hoverable = (*tipSelect)(nil)
	_ desktop.Hoverable = (*tipSlider)(nil)
	_ desktop.Hoverable = (*tipEntry)(nil)
)
