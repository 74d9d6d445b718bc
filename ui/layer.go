package ui

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"strata/stack"
)

// layerPanel edits the selected layer: name, tint, strength, tiling, texture maps, and its rules.
type layerPanel struct {
	ed       *editor
	name     *tipEntry
	swatch   *canvas.Rectangle
	tint     *tipButton
	strength *numField
	tiling   *numField
	maps     [3]*mapRow
	rules    *rulesEditor
	empty    *widget.Label
	form     *fyne.Container
	box      fyne.CanvasObject
}

// mapRow is one of a layer's texture maps: its file and buttons to choose or clear it.
type mapRow struct {
	role   string
	path   *widget.Label
	choose *tipButton
	clear  *tipButton
	box    *fyne.Container
}

func newLayerPanel(ed *editor) *layerPanel {
	p := &layerPanel{ed: ed}
	p.name = newTipEntry("The layer's name (engines see it in the layer table). Press Enter to rename.")
	p.name.OnSubmitted = func(s string) {
		i := ed.selLayer
		if ed.edit("Rename layer", func(st *stack.Stack) error { return st.RenameLayer(i, strings.TrimSpace(s)) }) == nil {
			unfocus(p.name)
		}
	}
	p.swatch = canvas.NewRectangle(color.Gray{0x80})
	p.swatch.SetMinSize(fyne.NewSize(36, 24))
	p.tint = newTipButton("Tint…", theme.ColorPaletteIcon(), "The layer's colour in the viewport (it multiplies a texture's albedo).", p.pickTint)
	p.strength = newNumField(numSpec{label: "strength", unit: "0..1", lo: 0, hi: 1, strict: true,
		tip: "How much of the ground the layer takes where its rules hold: coverage = strength × every rule."})
	p.strength.drag = func(v float64) error {
		i := ed.selLayer
		return ed.drag(p.label("strength"), func(st *stack.Stack) { st.Layers[i].Strength = v })
	}
	p.strength.endDrag = ed.s.EndDrag
	p.strength.commit = func(v float64) error {
		i := ed.selLayer
		return ed.edit(p.label("strength"), func(st *stack.Stack) error { st.Layers[i].Strength = v; return nil })
	}
	p.tiling = newNumField(numSpec{label: "tiling", unit: "m", lo: 0.5, hi: 200,
		tip: "How many metres one repeat of the layer's textures covers (only the viewport and engines draw it)."})
	p.tiling.drag = func(v float64) error {
		i := ed.selLayer
		return ed.drag(p.label("tiling"), func(st *stack.Stack) { st.Layers[i].Tiling = max(v, 0.01) })
	}
	p.tiling.endDrag = ed.s.EndDrag
	p.tiling.commit = func(v float64) error {
		i := ed.selLayer
		if !(v > 0) {
			return fmt.Errorf("tiling must be more than 0 m")
		}
		return ed.edit(p.label("tiling"), func(st *stack.Stack) error { st.Layers[i].Tiling = v; return nil })
	}
	for k, role := range []string{"albedo", "normal", "mask"} {
		p.maps[k] = p.newMapRow(role)
	}
	p.rules = newRulesEditor(ed, false)
	p.empty = widget.NewLabel("Select a layer in the stack above.")
	title := widget.NewLabelWithStyle("Rules", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.form = container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("name"), container.NewHBox(p.swatch, p.tint), p.name),
		p.strength.box, p.tiling.box,
		p.maps[0].box, p.maps[1].box, p.maps[2].box,
		title, p.rules.content(),
	)
	p.box = container.NewVScroll(container.NewVBox(p.empty, p.form))
	return p
}

func (p *layerPanel) content() fyne.CanvasObject { return p.box }

func (p *layerPanel) label(what string) string {
	st := p.ed.s.Stack()
	if st == nil || p.ed.selLayer < 0 || p.ed.selLayer >= len(st.Layers) {
		return what
	}
	return st.Layers[p.ed.selLayer].Name + ": " + what
}

func (p *layerPanel) refresh(st *stack.Stack) {
	i := p.ed.selLayer
	if st == nil || i < 0 || i >= len(st.Layers) || p.ed.s.Baked() {
		p.form.Hide()
		p.empty.Show()
		if p.ed.s.Baked() {
			p.empty.SetText("Baked weights: there is no stack to edit.")
		}
		return
	}
	p.empty.Hide()
	p.form.Show()
	l := &st.Layers[i]
	if p.ed.win.Canvas().Focused() != p.name {
		p.name.SetText(l.Name)
	}
	p.swatch.FillColor = color.NRGBA{l.Tint[0], l.Tint[1], l.Tint[2], 255}
	p.swatch.Refresh()
	p.strength.set(l.Strength, false)
	p.tiling.set(l.Tiling, false)
	for k, v := range []string{l.Albedo, l.Normal, l.Mask} {
		m := p.maps[k]
		if v == "" {
			m.path.SetText("(none)")
			m.clear.Disable()
		} else {
			m.path.SetText(filepath.Base(v))
			m.clear.Enable()
		}
	}
	p.rules.refresh(st, owner{index: i})
}

func (p *layerPanel) pickTint() {
	st := p.ed.s.Stack()
	i := p.ed.selLayer
	if st == nil || i < 0 || i >= len(st.Layers) {
		return
	}
	d := dialog.NewColorPicker("Tint of "+st.Layers[i].Name, "The layer's colour in the viewport", func(c color.Color) {
		r, g, b, _ := c.RGBA()
		p.ed.edit(p.label("tint"), func(st *stack.Stack) error {
			st.Layers[i].Tint = stack.Color{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
			return nil
		})
	}, p.ed.win)
	d.Advanced = true
	t := st.Layers[i].Tint
	d.SetColor(color.NRGBA{t[0], t[1], t[2], 255})
	d.Show()
}

func (p *layerPanel) newMapRow(role string) *mapRow {
	m := &mapRow{role: role, path: widget.NewLabel("(none)")}
	m.path.Truncation = fyne.TextTruncateEllipsis
	what := map[string]string{
		"albedo": "The layer's colour map (PNG or JPEG), packed into the albedo atlas and tiled every tiling metres.",
		"normal": "The layer's tangent-space normal map (PNG or JPEG).",
		"mask":   "The layer's mask map: R metallic, G occlusion, B height, A smoothness (engines read it).",
	}[role]
	m.choose = newTipButton("", theme.FolderOpenIcon(), "Choose the "+role+" map. "+what, func() {
		d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
			if err != nil || r == nil {
				return
			}
			path := r.URI().Path()
			r.Close()
			p.setMap(role, path)
		}, p.ed.win)
		d.SetFilter(storage.NewExtensionFileFilter([]string{".png", ".jpg", ".jpeg"}))
		d.Show()
	})
	m.clear = newTipButton("", theme.ContentClearIcon(), "Remove the "+role+" map from this layer.", func() { p.setMap(role, "") })
	m.box = container.NewBorder(nil, nil, widget.NewLabel(role), container.NewHBox(m.choose, m.clear), m.path)
	return m
}

func (p *layerPanel) setMap(role, path string) {
	i := p.ed.selLayer
	p.ed.edit(p.label(role+" map"), func(st *stack.Stack) error {
		l := &st.Layers[i]
		switch role {
		case "albedo":
			l.Albedo = path
		case "normal":
			l.Normal = path
		case "mask":
			l.Mask = path
		}
		return nil
	})
}
