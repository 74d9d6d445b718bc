package ui

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"strata/erode"
	"strata/field"
	"strata/landscape"
	"strata/session"
)

// Field → Erode… is on the Field menu; its dialog offers the presets and the landscape's masks,
// fills in the chosen preset's iterations, and its Erode button erodes through the session: one
// undoable step named for the preset, the erosion channels added.
func TestErodeFromMenu(t *testing.T) {
	ed := newTestEditor(t)
	if err := ed.s.NewMask("valley"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return slices.Contains(ed.s.Channels(), "mask.valley") })
	var action func()
	for _, m := range ed.menus.main.Items {
		for _, it := range m.Items {
			if m.Label == "Field" && it.Label == "Erode…" {
				action = it.Action
			}
		}
	}
	if action == nil {
		t.Fatal("no Field → Erode… menu item")
	}
	action()
	f := ed.erodeForm
	if f == nil {
		t.Fatal("Erode… showed no dialog")
	}
	if !slices.Equal(f.preset.Options, erode.Presets()) || f.preset.Selected != erode.DefaultPreset {
		t.Errorf("presets %q, selected %q", f.preset.Options, f.preset.Selected)
	}
	if !slices.Contains(f.mask.Options, "valley") || f.mask.Selected != noMask {
		t.Errorf("masks %q, selected %q", f.mask.Options, f.mask.Selected)
	}
	f.preset.SetSelected("light rain")
	if p, _ := erode.Preset("light rain"); f.iterations.Text != strconv.Itoa(p.Iterations) {
		t.Errorf("iterations %q after choosing light rain (its %d)", f.iterations.Text, p.Iterations)
	}
	f.iterations.SetText("6")
	f.seed.SetText("3")
	o, err := f.options()
	if err != nil || o.Preset != "light rain" || o.Iterations != 6 || o.Seed != 3 || o.Mask != "" {
		t.Fatalf("options %+v, %v", o, err)
	}
	f.dlg.Submit()
	waitFor(t, func() bool { return ed.s.UndoLabel() == "Erode (light rain)" })
	for _, c := range []string{erode.ChannelFlow, erode.ChannelDeposit, erode.ChannelWear} {
		if !slices.Contains(ed.s.Channels(), c) {
			t.Errorf("after Erode the channels are %v: no %s", ed.s.Channels(), c)
		}
	}
	waitFor(t, func() bool { return ed.menus.undo.Label == "Undo Erode (light rain)" })
	// Limited to the mask: the dialog passes its name.
	f = ed.erodeDialog()
	f.mask.SetSelected("valley")
	if o, err := f.options(); err != nil || o.Mask != "valley" {
		t.Errorf("limited to valley: %+v, %v", o, err)
	}
}

// The dialog's Advanced section: an entry for each of erode's parameters (but iterations, the
// dialog's own), filled from the chosen preset and refilled when it changes; an invalid value is
// refused naming the parameter (Erode disabled); a changed parameter reaches the session's
// erosion — the ground is erode.Run's with those parameters — and the step is "Erode (custom)".
func TestErodeAdvancedParams(t *testing.T) {
	ed := newTestEditor(t)
	f := ed.erodeDialog()
	filled := func(preset string) {
		t.Helper()
		p, _ := erode.Preset(preset)
		for _, q := range erode.ParamList() {
			e := f.advanced.entry(q.Name)
			if q.Name == "iterations" {
				if e != nil {
					t.Error("iterations is in Advanced as well as the dialog")
				}
				continue
			}
			if e == nil {
				t.Fatalf("Advanced has no entry for %s", q.Name)
			}
			if want := strconv.FormatFloat(q.Get(p), 'g', -1, 64); e.Text != want {
				t.Errorf("%s: %s %q, the preset's %s", preset, q.Name, e.Text, want)
			}
		}
	}
	filled(erode.DefaultPreset)
	f.advanced.entry("talus").SetText("12")
	f.preset.SetSelected("desert wash")
	filled("desert wash") // talus back to the preset's 45

	// Invalid values: refused naming the parameter; Erode does nothing.
	for _, c := range []struct{ name, text string }{{"evaporation", "1.5"}, {"talus", "steep"}, {"settleIterations", "2.5"}, {"timeStep", "0"}} {
		e := f.advanced.entry(c.name)
		old := e.Text
		e.SetText(c.text)
		if err := f.advanced.Validate(); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s %q: Advanced says %v, want an error naming %s", c.name, c.text, err, c.name)
		}
		if _, err := f.options(); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s %q: options say %v, want an error naming %s", c.name, c.text, err, c.name)
		}
		n := f.submitted
		f.dlg.Submit()
		if f.submitted != n {
			t.Errorf("%s %q: Erode ran", c.name, c.text)
		}
		e.SetText(old)
		if err := f.advanced.Validate(); err != nil {
			t.Errorf("%s back to %q: %v", c.name, old, err)
		}
	}

	// Changed parameters reach the erosion.
	f.advanced.entry("talus").SetText("25")
	f.advanced.entry("evaporation").SetText("0.1")
	f.advanced.entry("rainIterations").SetText("3")
	f.iterations.SetText("6")
	f.seed.SetText("3")
	o, err := f.options()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := erode.Preset("desert wash")
	p.Talus, p.Evaporation, p.RainIterations, p.Iterations = 25, 0.1, 3, 6
	if o.Params == nil || *o.Params != p || o.Iterations != 6 || o.Seed != 3 || o.Preset != "desert wash" {
		t.Fatalf("options %+v, params %+v; want %+v", o, o.Params, p)
	}
	orig := field.SampleDunesSized(64) // newTestEditor's ground
	want, err := erode.Run(context.Background(), orig.Height, orig.TexelSize(), erode.Options{Params: p, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.dlg.Submit()
	waitFor(t, func() bool { return ed.s.UndoLabel() == session.CustomErodeLabel })
	path := filepath.Join(t.TempDir(), "eroded.terrainData")
	if err := ed.s.SaveAs(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	l, err := landscape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Field.Height.Data, want.Height.Data) {
		t.Error("the eroded height is not erode.Run's with the dialog's parameters")
	}
	if slices.Equal(want.Height.Data, orig.Height.Data) {
		t.Error("the erosion moved nothing: the test shows nothing")
	}

	// The preset's own parameters (only iterations changed) keep the preset's name.
	f = ed.erodeDialog()
	f.preset.SetSelected("light rain")
	f.iterations.SetText("4")
	if o, err := f.options(); err != nil {
		t.Fatal(err)
	} else if _, label, err := o.Resolve(); err != nil || label != "Erode (light rain)" {
		t.Errorf("light rain as it is: %q, %v", label, err)
	}
}
