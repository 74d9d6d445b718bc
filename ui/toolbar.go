package ui

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
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
	box      *fyne.Container
	updating bool
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
		tool(ToolRaise, icons.Raise, "Raise the ground under the brush (R); hold Ctrl to lower it. A dab at full strength lifts the centre by 2% of the radius."),
		tool(ToolSmooth, icons.Smooth, "Smooth the ground under the brush (S): each texel moves toward the mean around it."),
		tool(ToolFlatten, icons.Flatten, "Flatten the ground under the brush (L) to the height where the stroke began."),
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
	t.strength = brushNum(numSpec{label: "strength", lo: 0, hi: 1, strict: true, tip: "How far one dab moves the mask toward 1 (or 0 when erasing), or the ground (raise: strength × 2% of the radius a dab; smooth and flatten: that part of the way)."},
		func(v float64) { ed.brush.Strength = v })
	t.falloff = brushNum(numSpec{label: "falloff", lo: 0, hi: 1, strict: true, tip: "0: a hard disc; 1: soft from the centre to the rim."},
		func(v float64) { ed.brush.Falloff = v })
	t.brushRow = container.NewGridWithColumns(4,
		container.NewBorder(nil, nil, widget.NewLabel("mask"), newMask, t.target),
		t.radius.box, t.strength.box, t.falloff.box)
	row := container.NewHBox(open, save, widget.NewSeparator(), t.undo, t.redo, widget.NewSeparator(), tools,
		widget.NewSeparator(), container.NewGridWrap(fyne.NewSize(300, t.overlay.MinSize().Height), t.overlay), t.tiles, widget.NewSeparator(), t.mapBtn, fit)
	t.box = container.NewVBox(row, t.brushRow)
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
