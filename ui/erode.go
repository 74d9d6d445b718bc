package ui

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
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

// erodeForm is the Field → Erode… dialog: the preset, its iterations, the seed and the mask the
// erosion is limited to.
type erodeForm struct {
	preset     *widget.Select
	hint       *widget.Label
	iterations *widget.Entry
	seed       *widget.Entry
	mask       *widget.Select
	dlg        *dialog.FormDialog
}

// erodeDialog shows Field → Erode…; its Erode button runs the erosion with a progress dialog and
// Cancel (ed.s.Erode: one undoable step).
func (ed *editor) erodeDialog() *erodeForm {
	f := &erodeForm{iterations: widget.NewEntry(), seed: widget.NewEntry(), hint: widget.NewLabel("")}
	f.iterations.Validator = integerIn("iterations", 0, erode.MaxIterations)
	f.seed.Validator = integerIn("seed", 0, math.MaxUint32)
	f.seed.SetText("1")
	f.preset = widget.NewSelect(erode.Presets(), func(name string) {
		if p, err := erode.Preset(name); err == nil {
			f.iterations.SetText(strconv.Itoa(p.Iterations))
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
	}
	f.dlg = dialog.NewForm("Erode", "Erode", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		o, err := f.options()
		if err != nil {
			ed.notify(err)
			return
		}
		ed.runErode(o)
	}, ed.win)
	for _, e := range []*widget.Entry{f.iterations, f.seed} {
		e.OnSubmitted = func(string) { f.dlg.Submit() }
	}
	f.dlg.Resize(fyne.NewSize(560, f.dlg.MinSize().Height))
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
	o := session.ErodeOptions{Preset: f.preset.Selected, Iterations: n, Seed: uint32(seed)}
	if f.mask.Selected != noMask {
		o.Mask = f.mask.Selected
	}
	return o, nil
}

// runErode erodes in the background with a progress dialog and Cancel.
func (ed *editor) runErode(o session.ErodeOptions) {
	title := session.ErodeLabel(o.Preset)
	ed.runLong(title, func(ctx context.Context, report progress.Func) error {
		return ed.s.Erode(ctx, o, report)
	}, func(err error) {
		if err == nil {
			ed.inform(title + ": done (Undo puts the ground back)")
		}
	})
}
