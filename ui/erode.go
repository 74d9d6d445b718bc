package ui

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"strata/erode"
	"strata/field"
	"strata/progress"
	"strata/session"
)

// noMask is the mask choice that erodes the whole field.
const noMask = "none (the whole field)"

// presetHints say what each erode preset does (docs/design.md "Erosion").
var presetHints = map[string]string{
	"default":       "balanced rain and talus",
	"light rain":    "the ground touched: shallow rills, cliffs kept",
	"old mountains": "long weathering: rounded ridges, valleys filled with scree",
	"desert wash":   "one cloudburst: the flood runs off and drops its load in fans",
}

// erodeForm is the Field → Erode… dialog: the preset, its iterations, the seed, the mask the
// erosion is limited to and, under Advanced, the preset's other parameters.
type erodeForm struct {
	preset     *widget.Select
	hint       *widget.Label
	iterations *widget.Entry
	seed       *widget.Entry
	mask       *widget.Select
	advanced   *erodeAdvanced
	dlg        *dialog.FormDialog
	// submitted counts the Erode button's presses that reached the callback (the dialog refuses
	// them while a value is invalid).
	submitted int
}

// erodeAdvanced is the dialog's collapsible Advanced section: an entry for each of erode's
// parameters but iterations (erode.ParamList: name, unit and range), each validated by
// erode.Params.Validate on the chosen preset's parameters with that one replaced. It is
// fyne.Validatable, so the form shows the first invalid parameter's error under it and the
// dialog disables Erode while there is one.
type erodeAdvanced struct {
	widget.BaseWidget
	show    *widget.Check
	body    *fyne.Container
	params  []erode.Param
	entries []*widget.Entry
	base    func() erode.Params // the chosen preset's parameters
	changed func(error)
	resized func()
}

func newErodeAdvanced(base func() erode.Params) *erodeAdvanced {
	a := &erodeAdvanced{base: base}
	var cols [2][]*widget.FormItem
	for _, q := range erode.ParamList() {
		if q.Name == "iterations" {
			continue // the dialog's own entry
		}
		e := widget.NewEntry()
		e.Validator = func(text string) error {
			_, err := a.parse(q, text)
			return err
		}
		col := len(a.params) % 2
		cols[col] = append(cols[col], formHint(q.Name, e, q.Unit+"; "+q.Range))
		a.params = append(a.params, q)
		a.entries = append(a.entries, e)
	}
	forms := []*widget.Form{widget.NewForm(cols[0]...), widget.NewForm(cols[1]...)}
	for _, form := range forms {
		// The inner forms watch their entries (each shows its own error); the dialog's form
		// learns of a change through a.
		form.SetOnValidationChanged(func(error) {
			if a.changed != nil {
				a.changed(a.Validate())
			}
		})
	}
	a.body = container.NewGridWithColumns(2, forms[0], forms[1])
	a.body.Hide()
	a.show = widget.NewCheck("Advanced: the preset's parameters", func(on bool) {
		if on {
			a.body.Show()
		} else {
			a.body.Hide()
		}
		a.Refresh()
		if a.resized != nil {
			a.resized()
		}
	})
	a.ExtendBaseWidget(a)
	return a
}

// parse reads text as parameter q and validates it with erode's own validation: the preset's
// parameters with q replaced.
func (a *erodeAdvanced) parse(q erode.Param, text string) (float64, error) {
	text = strings.TrimSpace(text)
	var v float64
	if q.Integer {
		n, err := strconv.Atoi(text)
		if err != nil {
			return 0, fmt.Errorf("erode: %s %q: want a whole number, %s", q.Name, text, q.Range)
		}
		v = float64(n)
	} else {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return 0, fmt.Errorf("erode: %s %q: want a number, %s", q.Name, text, q.Range)
		}
		v = f
	}
	p := a.base()
	q.Set(&p, v)
	return v, p.Validate()
}

// fill puts p's values in the entries.
func (a *erodeAdvanced) fill(p erode.Params) {
	for i, q := range a.params {
		a.entries[i].SetText(strconv.FormatFloat(q.Get(p), 'g', -1, 64))
	}
}

// entry returns the entry of the parameter named name (nil if none).
func (a *erodeAdvanced) entry(name string) *widget.Entry {
	for i, q := range a.params {
		if q.Name == name {
			return a.entries[i]
		}
	}
	return nil
}

// apply sets p's parameters from the entries; the first invalid one is an error naming it.
func (a *erodeAdvanced) apply(p *erode.Params) error {
	for i, q := range a.params {
		v, err := a.parse(q, a.entries[i].Text)
		if err != nil {
			return err
		}
		q.Set(p, v)
	}
	return nil
}

// Validate reports the first invalid parameter (fyne.Validatable). It runs the entries'
// validators without setting their state (which would tell the forms again, and so on).
func (a *erodeAdvanced) Validate() error {
	for _, e := range a.entries {
		if err := e.Validator(e.Text); err != nil {
			return err
		}
	}
	return nil
}

// SetOnValidationChanged is fyne.Validatable's: the form learns when a parameter turns valid or
// invalid.
func (a *erodeAdvanced) SetOnValidationChanged(f func(error)) { a.changed = f }

func (a *erodeAdvanced) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewVBox(a.show, a.body))
}

// erodeDialog shows Field → Erode…; its Erode button runs the erosion with a progress dialog and
// Cancel (ed.s.Erode: one undoable step).
func (ed *editor) erodeDialog() *erodeForm {
	f := &erodeForm{iterations: widget.NewEntry(), seed: widget.NewEntry(), hint: widget.NewLabel("")}
	f.iterations.Validator = integerIn("iterations", 0, erode.MaxIterations)
	f.seed.Validator = integerIn("seed", 0, math.MaxUint32)
	f.seed.SetText("1")
	f.advanced = newErodeAdvanced(func() erode.Params {
		p, err := erode.Preset(f.preset.Selected)
		if err != nil {
			p, _ = erode.Preset(erode.DefaultPreset)
		}
		return p
	})
	f.preset = widget.NewSelect(erode.Presets(), func(name string) {
		if p, err := erode.Preset(name); err == nil {
			f.iterations.SetText(strconv.Itoa(p.Iterations))
			f.advanced.fill(p)
		}
		f.hint.SetText(presetHints[name])
	})
	f.preset.SetSelected(erode.DefaultPreset)
	masks := []string{noMask}
	for _, c := range ed.s.Channels() {
		if strings.HasPrefix(c, field.MaskPrefix) {
			masks = append(masks, strings.TrimPrefix(c, field.MaskPrefix))
		}
	}
	f.mask = widget.NewSelect(masks, nil)
	f.mask.SetSelected(noMask)
	items := []*widget.FormItem{
		widget.NewFormItem("preset", f.preset),
		widget.NewFormItem("", f.hint),
		formHint("iterations", f.iterations, "hydraulic iterations (the preset's by default); the thermal settle follows"),
		formHint("seed", f.seed, "varies the rain; the same seed, the same ground"),
		formHint("limit to mask", f.mask, "outside the mask the ground is unchanged; inside, eroded as far as the mask is painted"),
		formHint("", f.advanced, "the chosen preset's, refilled when it changes; any change makes the step \"Erode (custom)\""),
	}
	f.dlg = dialog.NewForm("Erode", "Erode", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		f.submitted++
		o, err := f.options()
		if err != nil {
			ed.notify(err)
			return
		}
		ed.runErode(o)
	}, ed.win)
	for _, e := range append([]*widget.Entry{f.iterations, f.seed}, f.advanced.entries...) {
		e.OnSubmitted = func(string) { f.dlg.Submit() }
	}
	f.advanced.resized = func() {
		w := float32(560)
		if f.advanced.show.Checked {
			w = 760
		}
		f.dlg.Resize(fyne.NewSize(w, f.dlg.MinSize().Height))
	}
	f.advanced.resized()
	f.dlg.Show()
	ed.win.Canvas().Focus(f.iterations)
	ed.erodeForm = f
	return f
}

// options parses the dialog.
func (f *erodeForm) options() (session.ErodeOptions, error) {
	n, err := strconv.Atoi(strings.TrimSpace(f.iterations.Text))
	if err != nil || n < 0 || n > erode.MaxIterations {
		return session.ErodeOptions{}, fmt.Errorf("erode: iterations %q: a whole number from 0 to %d", f.iterations.Text, erode.MaxIterations)
	}
	seed, err := strconv.ParseUint(strings.TrimSpace(f.seed.Text), 10, 32)
	if err != nil {
		return session.ErodeOptions{}, fmt.Errorf("erode: seed %q: a whole number from 0 to %d", f.seed.Text, uint64(math.MaxUint32))
	}
	p, err := erode.Preset(f.preset.Selected)
	if err != nil {
		return session.ErodeOptions{}, err
	}
	if err := f.advanced.apply(&p); err != nil {
		return session.ErodeOptions{}, err
	}
	p.Iterations = n
	o := session.ErodeOptions{Preset: f.preset.Selected, Params: &p, Iterations: n, Seed: uint32(seed)}
	if f.mask.Selected != noMask {
		o.Mask = f.mask.Selected
	}
	if _, _, err := o.Resolve(); err != nil {
		return session.ErodeOptions{}, err
	}
	return o, nil
}

// runErode erodes in the background with a progress dialog and Cancel.
func (ed *editor) runErode(o session.ErodeOptions) {
	_, title, err := o.Resolve()
	if err != nil {
		ed.notify(err)
		return
	}
	ed.runLong(title, func(ctx context.Context, report progress.Func) error {
		return ed.s.Erode(ctx, o, report)
	}, func(err error) {
		if err == nil {
			ed.inform(title + ": done (Undo puts the ground back)")
		}
	})
}
