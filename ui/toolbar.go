package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"strata/field"
	"strata/icons"
	"strata/session"
	"strata/viewport"
)

// toolbar holds the file and history buttons, the viewport tools, the overlay choice and, while a
// brush is active, the brush's settings.
type toolbar struct {
	ed       *editor
	toolBtns map[Tool]*tipButton
	undo     *tipButton
	redo     *tipButton
	overlay  *tipSelect
	tiles    *tipCheck
	mapBtn   *tipButton
	target   *tipSelect
	radius   *numField
	strength *numField
	falloff  *numField
	brushRow *fyne.Container
	// sculptRow holds the active sculpt tool's own parameters (set height, terrace, noise,
	// stamp, flatten's level); empty for the other tools.
	sculptRow                    *fyne.Container
	setHeight, step, sharpness   *numField
	amplitude, featureSize, seed *numField
	angle, stampHeight           *numField
	stampBtn, levelClear         *tipButton
	stampName, levelInfo         *widget.Label
	box                          *fyne.Container
	updating                     bool
}

// Overlay choices as the drop-down shows them.
const (
	ovNone      = "No overlay"
	ovWeight    = "Weight of the selected layer"
	ovSlope     = "Slope"
	ovCurvature = "Curvature"
	ovAspect    = "Aspect (which way slopes face)"
	ovFlow      = "Flow (where water gathers)"
	ovDensity   = "Density of the selected population"
	ovMask      = "The mask the brush paints"
)

func newToolbar(ed *editor) *toolbar {
	t := &toolbar{ed: ed, toolBtns: map[Tool]*tipButton{}}
	open := newTipButton("", theme.FolderOpenIcon(), "Open a terrainData landscape (Ctrl+O).", ed.openDialog)
	save := newTipButton("", theme.DocumentSaveIcon(), "Save (Ctrl+S): the stack, painted masks and holes go into the container, atomically.", ed.save)
	t.undo = newTipButton("", theme.ContentUndoIcon(), "Undo (Ctrl+Z).", func() { ed.s.Undo() })
	t.redo = newTipButton("", theme.ContentRedoIcon(), "Redo (Ctrl+Shift+Z or Ctrl+Y).", func() { ed.s.Redo() })
	tool := func(tl Tool, icon fyne.Resource, tipText string) *tipButton {
		b := newTipButton("", icon, tipText, func() { ed.setTool(tl) })
		t.toolBtns[tl] = b
		return b
	}
	tools := container.NewHBox(
		tool(ToolCamera, icons.Orbit, "Camera: drag to orbit, right-drag (or Shift+drag) to pan, wheel to zoom, double-click to centre."),
		tool(ToolPaint, icons.Brush, "Paint the chosen mask: drag over the ground. [ and ] change the size."),
		tool(ToolErase, icons.Eraser, "Erase the chosen mask."),
		tool(ToolHole, icons.Hole, "Cut holes: the ground under the brush is removed (caves, quarries)."),
		tool(ToolRestore, icons.Ground, "Restore ground where holes were cut."),
		widget.NewSeparator(),
		tool(ToolRaise, icons.Raise, "Raise the ground under the brush (R); hold Shift or Ctrl to lower it. A dab at full strength lifts the centre by 2% of the radius."),
		tool(ToolSmooth, icons.Smooth, "Smooth the ground under the brush (S): each texel moves toward the mean around it."),
		tool(ToolFlatten, icons.Flatten, "Flatten the ground under the brush (L) to the height where the stroke began; Shift+click picks the level without sculpting."),
		tool(ToolSetHeight, icons.SetHeight, "Set the ground under the brush (H) toward the typed height."),
		tool(ToolTerrace, icons.Terrace, "Terrace the ground under the brush (T): steps of the typed height, sharpness 0 (none) to 1 (hard)."),
		tool(ToolNoise, icons.Noise, "Add noise to the ground under the brush (N): world-anchored, the same seed the same bumps."),
		tool(ToolStamp, icons.Stamp, "Stamp a heightmap image (P) at the click, scaled to the brush, turned by the angle; Shift or Ctrl+click cuts it in."),
	)
	t.overlay = newTipSelect([]string{ovNone, ovWeight, ovSlope, ovCurvature, ovAspect, ovFlow, ovDensity, ovMask},
		"Paint information over the ground: a layer's weight, the slope, the curvature, the aspect (the compass direction "+
			"the downhill faces: north red, east yellow-green, south cyan, west violet, flat ground grey), the flow (the area "+
			"draining through each point, on a log scale from dark violet for a single texel's own area through blue and green "+
			"to yellow for the whole field's: river beds bright), a population's density or the mask being painted.", func(s string) {
			if !t.updating {
				ed.applyOverlay()
			}
		})
	t.updating = true
	t.overlay.SetSelected(ovNone)
	t.updating = false
	t.tiles = newTipCheck("tiles", "Draw the evaluation tiles and flash the ones each edit re-evaluates.", func(bool) {
		if !t.updating {
			ed.applyOverlay()
		}
	})
	t.mapBtn = newTipButton("", icons.Map, "Toggle the top-down map (M).", ed.s.ToggleMap)
	fit := newTipButton("", icons.Frame, "Frame the whole landscape (F).", func() { ed.s.FitCamera(ed.s.Camera().Mode == viewport.ViewMap) })

	t.target = newTipSelect(nil, "The mask the brush paints (Field → New mask creates one).", func(s string) {
		if !t.updating && s != "" {
			ed.brush.Target = field.MaskPrefix + s
			if t.overlay.Selected == ovMask {
				ed.applyOverlay()
			}
		}
	})
	newMask := newTipButton("", theme.ContentAddIcon(), "Create a new mask to paint.", ed.askNewMask)
	brushNum := func(sp numSpec, set func(v float64)) *numField {
		f := newNumField(sp)
		f.drag = func(v float64) error { set(v); return nil }
		f.commit = func(v float64) error { set(v); t.refresh(); return nil }
		return f
	}
	t.radius = brushNum(numSpec{label: "radius", unit: "m", lo: 1, hi: 1000, tip: "The brush radius in metres ([ and ] change it)."},
		func(v float64) { ed.brush.Radius = v })
	t.strength = brushNum(numSpec{label: "strength", lo: 0, hi: 1, strict: true, tip: "How far one dab moves the mask toward 1 (or 0 when erasing), or the ground (raise: strength × 2% of the radius a dab; noise, stamp: that part of their height; smooth, flatten, set, terrace: that part of the way)."},
		func(v float64) { ed.brush.Strength = v })
	t.falloff = brushNum(numSpec{label: "falloff", lo: 0, hi: 1, strict: true, tip: "0: a hard disc; 1: soft from the centre to the rim."},
		func(v float64) { ed.brush.Falloff = v })
	t.brushRow = container.NewGridWithColumns(4,
		container.NewBorder(nil, nil, widget.NewLabel("mask"), newMask, t.target),
		t.radius.box, t.strength.box, t.falloff.box)
	t.sculptParams(brushNum)
	row := container.NewHBox(open, save, widget.NewSeparator(), t.undo, t.redo, widget.NewSeparator(), tools,
		widget.NewSeparator(), container.NewGridWrap(fyne.NewSize(300, t.overlay.MinSize().Height), t.overlay), t.tiles, widget.NewSeparator(), t.mapBtn, fit)
	t.box = container.NewVBox(row, t.brushRow, t.sculptRow)
	return t
}

func (t *toolbar) content() fyne.CanvasObject { return t.box }

// refresh shows the active tool, the brush settings and the history buttons' state.
func (t *toolbar) refresh() {
	t.updating = true
	defer func() { t.updating = false }()
	ed := t.ed
	for tl, b := range t.toolBtns {
		if tl == ed.tool {
			b.Importance = widget.HighImportance
		} else {
			b.Importance = widget.MediumImportance
		}
		b.Refresh()
	}
	if ed.s.UndoLabel() == "" {
		t.undo.Disable()
	} else {
		t.undo.Enable()
	}
	if ed.s.RedoLabel() == "" {
		t.redo.Disable()
	} else {
		t.redo.Enable()
	}
	var masks []string
	for _, c := range ed.s.Channels() {
		if strings.HasPrefix(c, field.MaskPrefix) {
			masks = append(masks, strings.TrimPrefix(c, field.MaskPrefix))
		}
	}
	t.target.Options = masks
	// The brush paints a mask that exists: the first one when none is chosen, or when the chosen
	// one went (its creation undone, the file reloaded without it).
	if target := strings.TrimPrefix(ed.brush.Target, field.MaskPrefix); target == "" || !slices.Contains(masks, target) {
		was := ed.brush.Target
		ed.brush.Target = ""
		if len(masks) > 0 {
			ed.brush.Target = field.MaskPrefix + masks[0]
		}
		if t.overlay.Selected == ovMask && ed.brush.Target != was {
			defer ed.applyOverlay() // after the update: the overlay shows the mask now painted
		}
	}
	if ed.brush.Target == "" {
		t.target.ClearSelected()
	} else {
		t.target.SetSelected(strings.TrimPrefix(ed.brush.Target, field.MaskPrefix))
	}
	if ed.tool == ToolPaint || ed.tool == ToolErase {
		t.target.Enable()
	} else {
		t.target.Disable()
	}
	t.refreshSculpt()
	t.radius.set(ed.brush.Radius, false)
	t.strength.set(ed.brush.Strength, false)
	t.falloff.set(ed.brush.Falloff, false)
	// The brush row stays in place (the layout does not jump); it is live only for a brush.
	for _, f := range []*numField{t.radius, t.strength, t.falloff} {
		if ed.tool == ToolCamera {
			f.slider.Disable()
			f.entry.Disable()
		} else {
			f.slider.Enable()
			f.entry.Enable()
		}
	}
}

// applyOverlay hands the chosen overlay to the session.
func (ed *editor) applyOverlay() {
	o := session.Overlay{Tiles: ed.tools.tiles.Checked, Layer: max(ed.selLayer, 0)}
	switch ed.tools.overlay.Selected {
	case ovWeight:
		o.Mode = viewport.OverlayWeight
	case ovSlope:
		o.Mode = viewport.OverlaySlope
	case ovCurvature:
		o.Mode = viewport.OverlayCurvature
	case ovAspect:
		o.Mode = viewport.OverlayAspect
	case ovFlow:
		o.Mode = viewport.OverlayFlow
	case ovDensity:
		o.Mode = viewport.OverlayDensity
		if st := ed.s.Stack(); st != nil && ed.selPop >= 0 && ed.selPop < len(st.Populations) {
			o.Population = st.Populations[ed.selPop].Name
		}
	case ovMask:
		if ed.brush.Target == "" {
			ed.inform("No mask to show yet: create one with the + beside the brush's mask.")
		}
		o.Mode, o.Channel = viewport.OverlayDensity, ed.brush.Target
	}
	ed.s.SetOverlay(o)
}

// sculptParams builds the sculpt tools' own fields.
func (t *toolbar) sculptParams(brushNum func(numSpec, func(float64)) *numField) {
	ed := t.ed
	positive := func(f *numField, name string, set func(v float64)) {
		f.commit = func(v float64) error {
			if !(v > 0) {
				return fmt.Errorf("the %s must be more than 0", name)
			}
			set(v)
			t.refresh()
			return nil
		}
	}
	t.setHeight = brushNum(numSpec{label: "height", unit: "m", lo: -500, hi: 3000, tip: "The height the set-height brush moves the ground toward, metres."},
		func(v float64) { ed.brush.Height = v })
	t.step = brushNum(numSpec{label: "step", unit: "m", lo: 0.5, hi: 100, tip: "The terrace brush's step: metres between terraces (anchored at 0 m)."},
		func(v float64) { ed.brush.Step = v })
	positive(t.step, "step", func(v float64) { ed.brush.Step = v })
	t.sharpness = brushNum(numSpec{label: "sharpness", lo: 0, hi: 1, strict: true, tip: "The terrace brush's sharpness: 0 changes nothing, 1 makes hard steps."},
		func(v float64) { ed.brush.Sharpness = v })
	t.amplitude = brushNum(numSpec{label: "amplitude", unit: "m", lo: 0, hi: 50, tip: "The noise brush's amplitude: metres up and down at full strength."},
		func(v float64) { ed.brush.Amplitude = v })
	t.featureSize = brushNum(numSpec{label: "feature size", unit: "m", lo: 1, hi: 1000, tip: "The noise brush's feature size: the wavelength of its largest bumps, metres."},
		func(v float64) { ed.brush.FeatureSize = v })
	positive(t.featureSize, "feature size", func(v float64) { ed.brush.FeatureSize = v })
	t.seed = brushNum(numSpec{label: "seed", lo: 0, hi: 999, integer: true, tip: "The noise brush's seed: the same seed lays the same bumps at the same place."},
		func(v float64) { ed.brush.Seed = uint32(max(0, min(v, 1<<32-1))) })
	t.angle = brushNum(numSpec{label: "angle", unit: "°", lo: -180, hi: 180, tip: "The stamp's turn, degrees counter-clockwise seen from above."},
		func(v float64) { ed.brush.Angle = v })
	t.stampHeight = brushNum(numSpec{label: "height", unit: "m", lo: 0, hi: 200, tip: "The stamp's height: metres where its image is white."},
		func(v float64) { ed.brush.StampHeight = v })
	t.stampName = widget.NewLabel("no image")
	t.stampBtn = newTipButton("Image…", theme.FolderOpenIcon(), "Choose the stamp's heightmap image (PNG 8/16-bit, EXR, TIFF).", func() {
		d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
			if err != nil || r == nil {
				return
			}
			path := r.URI().Path()
			r.Close()
			if err := ed.loadStamp(path); err != nil {
				ed.notify(err)
			}
		}, ed.win)
		d.SetFilter(storage.NewExtensionFileFilter([]string{".png", ".exr", ".tif", ".tiff", ".f32"}))
		d.Show()
	})
	t.levelInfo = widget.NewLabel("")
	t.levelClear = newTipButton("Under the press", nil, "Forget the picked level: each stroke flattens to the height where it begins.", func() {
		ed.hasFlatLevel = false
		t.refresh()
	})
	t.sculptRow = container.NewGridWithColumns(4)
}

// refreshSculpt shows the active sculpt tool's parameters with the brush's values.
func (t *toolbar) refreshSculpt() {
	ed := t.ed
	var objs []fyne.CanvasObject
	switch ed.tool {
	case ToolFlatten:
		if ed.hasFlatLevel {
			t.levelInfo.SetText(fmt.Sprintf("level %.2f m (picked; Shift+click picks another)", ed.flatLevel))
			t.levelClear.Enable()
		} else {
			t.levelInfo.SetText("level: the height under the press (Shift+click picks one)")
			t.levelClear.Disable()
		}
		objs = []fyne.CanvasObject{t.levelInfo, t.levelClear}
	case ToolSetHeight:
		t.setHeight.set(ed.brush.Height, false)
		objs = []fyne.CanvasObject{t.setHeight.box}
	case ToolTerrace:
		t.step.set(ed.brush.Step, false)
		t.sharpness.set(ed.brush.Sharpness, false)
		objs = []fyne.CanvasObject{t.step.box, t.sharpness.box}
	case ToolNoise:
		t.amplitude.set(ed.brush.Amplitude, false)
		t.featureSize.set(ed.brush.FeatureSize, false)
		t.seed.set(float64(ed.brush.Seed), false)
		objs = []fyne.CanvasObject{t.amplitude.box, t.featureSize.box, t.seed.box}
	case ToolStamp:
		if ed.stampName != "" {
			t.stampName.SetText(ed.stampName)
		}
		t.angle.set(ed.brush.Angle, false)
		t.stampHeight.set(ed.brush.StampHeight, false)
		objs = []fyne.CanvasObject{container.NewBorder(nil, nil, t.stampBtn, nil, t.stampName), t.angle.box, t.stampHeight.box}
	}
	t.sculptRow.Objects = objs
	t.sculptRow.Refresh()
}
