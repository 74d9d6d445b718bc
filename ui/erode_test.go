package ui

import (
	"slices"
	"strconv"
	"testing"

	"strata/erode"
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
