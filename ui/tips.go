package ui

import (
	"time"

	"fyne.io/fyne/v2"
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
	pop   *widget.PopUp
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
	if t.pop != nil {
		t.pop.Hide()
		t.pop = nil
	}
}

func (t *tip) stop() {
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
}

func (t *tip) show() {
	app := fyne.CurrentApp()
	if app == nil || t.owner == nil {
		return
	}
	c := app.Driver().CanvasForObject(t.owner)
	if c == nil {
		return
	}
	plain := widget.NewLabel(t.text)
	w := fyne.Min(plain.MinSize().Width, 360)
	l := widget.NewLabel(t.text)
	l.Wrapping = fyne.TextWrapWord
	l.Resize(fyne.NewSize(w, plain.MinSize().Height))
	t.pop = widget.NewPopUp(l, c)
	t.pop.Resize(fyne.NewSize(w+2*theme.Padding(), l.MinSize().Height+2*theme.Padding()))
	pos := t.at.Add(fyne.NewPos(12, 20))
	if cs := c.Size(); pos.X+t.pop.Size().Width > cs.Width {
		pos.X = cs.Width - t.pop.Size().Width - 4
	}
	t.pop.ShowAtPosition(pos)
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
