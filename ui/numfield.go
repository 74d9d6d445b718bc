package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// numField is one number of the stack as an artist edits it: a slider across the range the field
// gives, a numeric entry in the unit, and optionally an "open" toggle for a band's missing min or
// max. Dragging the slider previews (session.Drag) and releasing records one step; typing a value
// and pressing Enter (or leaving the entry) records one step. A value that is not a number, or
// falls outside [lo, hi] when strict, shows an error under the field and changes nothing.
type numField struct {
	label  *widget.Label
	unit   *widget.Label
	slider *tipSlider
	entry  *tipEntry
	open   *tipCheck // nil when the value cannot be open
	errMsg *widget.Label
	box    *fyne.Container

	lo, hi   float64
	strict   bool // entries outside [lo, hi] are refused (else the slider just clamps)
	integer  bool
	updating bool // set while the panel writes values in, so callbacks do not fire edits

	// drag is called while the slider moves, commit when it is released or a value is typed;
	// setOpen when the open toggle changes. Each returns an error to show (and the value stays).
	drag    func(v float64) error
	commit  func(v float64) error
	endDrag func()
	setOpen func(open bool) error
}

// numSpec describes a numField.
type numSpec struct {
	label, unit, tip string
	lo, hi           float64
	strict, integer  bool
	openable         bool
	openTip          string
}

func newNumField(sp numSpec) *numField {
	f := &numField{lo: sp.lo, hi: sp.hi, strict: sp.strict, integer: sp.integer}
	f.label = widget.NewLabel(sp.label)
	f.unit = widget.NewLabel(sp.unit)
	f.slider = newTipSlider(sp.lo, sp.hi, sp.tip)
	if sp.integer {
		f.slider.Step = 1
	}
	f.entry = newTipEntry(sp.tip + " Type a value and press Enter.")
	f.errMsg = widget.NewLabel("")
	f.errMsg.Importance = widget.DangerImportance
	f.errMsg.Hide()
	f.slider.OnChanged = func(v float64) {
		if f.updating {
			return
		}
		f.showValue(v)
		if f.drag != nil {
			f.report(f.drag(v))
		}
	}
	f.slider.OnChangeEnded = func(v float64) {
		if f.updating {
			return
		}
		if f.endDrag != nil {
			f.endDrag()
		}
	}
	f.entry.OnSubmitted = func(s string) { f.submit(s) }
	row := []fyne.CanvasObject{f.label}
	if sp.openable {
		f.open = newTipCheck("open", sp.openTip, func(on bool) {
			if f.updating || f.setOpen == nil {
				return
			}
			f.report(f.setOpen(on))
		})
		row = append(row, f.open)
	}
	entryBox := container.NewGridWrap(fyne.NewSize(96, f.entry.MinSize().Height), f.entry)
	top := container.NewBorder(nil, nil, container.NewHBox(row...), container.NewHBox(entryBox, f.unit), f.slider)
	f.box = container.NewVBox(top, f.errMsg)
	return f
}

// submit parses typed text and commits it.
func (f *numField) submit(s string) {
	if f.updating {
		return
	}
	v, err := f.parse(s)
	if err != nil {
		f.report(err)
		return
	}
	if f.commit != nil {
		if err := f.commit(v); err != nil {
			f.report(err)
			return
		}
	}
	f.report(nil)
	unfocus(f.entry)
}

// unfocus gives the keyboard back to the window once a typed value is committed, so Ctrl+Z and
// the other shortcuts act on the landscape (an entry with focus keeps them for its own text).
func unfocus(o fyne.CanvasObject) {
	if a := fyne.CurrentApp(); a != nil {
		if c := a.Driver().CanvasForObject(o); c != nil {
			c.Unfocus()
		}
	}
}

// parse reads a typed value: a number (a comma is taken as the decimal point), within the range
// when the field is strict, whole for an integer field.
func (f *numField) parse(s string) (float64, error) {
	t := strings.TrimSpace(strings.ReplaceAll(s, ",", "."))
	if f.unit != nil {
		t = strings.TrimSpace(strings.TrimSuffix(t, f.unit.Text))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if f.integer && v != math.Trunc(v) {
		return 0, fmt.Errorf("%v: a whole number, please", v)
	}
	if f.strict && (v < f.lo || v > f.hi) {
		return 0, fmt.Errorf("%v is outside %v … %v", v, trimFloat(f.lo), trimFloat(f.hi))
	}
	return v, nil
}

// report shows err under the field, or clears it.
func (f *numField) report(err error) {
	if err == nil {
		f.errMsg.SetText("")
		f.errMsg.Hide()
		return
	}
	f.errMsg.SetText(err.Error())
	f.errMsg.Show()
}

// set writes a value (and the open state) into the field without firing edits.
func (f *numField) set(v float64, open bool) {
	f.updating = true
	defer func() { f.updating = false }()
	if f.open != nil {
		f.open.SetChecked(open)
	}
	if open {
		f.slider.Disable()
		f.entry.Disable()
		f.entry.SetText("")
		f.entry.SetPlaceHolder("open")
		return
	}
	f.slider.Enable()
	f.entry.Enable()
	f.slider.SetValue(math.Max(f.lo, math.Min(f.hi, v)))
	f.showValue(v)
}

// setRange changes the slider's span (the input or the field changed).
func (f *numField) setRange(lo, hi float64, unit string) {
	f.lo, f.hi = lo, hi
	f.updating = true
	f.slider.Min, f.slider.Max = lo, hi
	if !f.integer {
		f.slider.Step = (hi - lo) / 1000
	}
	f.slider.Refresh()
	f.updating = false
	f.unit.SetText(unit)
}

func (f *numField) showValue(v float64) {
	was := f.updating
	f.updating = true
	f.entry.SetText(trimFloat(v))
	f.updating = was
}

// trimFloat prints v with at most 4 significant decimals and no trailing zeros.
func trimFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 5, 64)
}
