package ui

import (
	"fmt"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"strata/icons"
	"strata/stack"
)

// layersPanel is the layer stack as an image editor shows it: the top layer at the top, layer 0
// (the ground) at the bottom. A row is selected by a click and moved by dragging its grip.
type layersPanel struct {
	ed     *editor
	rows   *fyne.Container
	add    *tipButton
	dup    *tipButton
	del    *tipButton
	up     *tipButton
	down   *tipButton
	box    fyne.CanvasObject
	list   []*layerRow
	marker *canvas.Rectangle // where a dragged row will land
}

func newLayersPanel(ed *editor) *layersPanel {
	p := &layersPanel{ed: ed}
	p.rows = container.NewVBox()
	p.add = newTipButton("", theme.ContentAddIcon(), "Add a layer on top of the stack (Ctrl+Shift+N). It covers everything until you give it rules.", p.addLayer)
	p.dup = newTipButton("", theme.ContentCopyIcon(), "Duplicate the selected layer with its rules, just above it.", p.duplicate)
	p.del = newTipButton("", theme.DeleteIcon(), "Delete the selected layer (population rules reading it go too). Undo brings it back.", p.remove)
	p.up = newTipButton("", theme.MoveUpIcon(), "Move the selected layer up the stack (it then wins over the layer it passed).", func() { p.move(+1) })
	p.down = newTipButton("", theme.MoveDownIcon(), "Move the selected layer down the stack.", func() { p.move(-1) })
	p.marker = canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
	p.marker.Hide()
	title := widget.NewLabelWithStyle("Layers", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head := container.NewBorder(nil, nil, container.NewHBox(widget.NewIcon(icons.Layers), title),
		container.NewHBox(p.add, p.dup, p.del, p.up, p.down))
	p.box = container.NewBorder(head, nil, nil, nil, container.NewVScroll(container.NewStack(p.rows, container.NewWithoutLayout(p.marker))))
	return p
}

func (p *layersPanel) content() fyne.CanvasObject { return p.box }

// refresh rebuilds the rows from st (eight at most, so a rebuild is cheap).
func (p *layersPanel) refresh(st *stack.Stack) {
	p.rows.RemoveAll()
	p.list = nil
	editable := st != nil && !p.ed.s.Baked()
	for _, b := range []*tipButton{p.add, p.dup, p.del, p.up, p.down} {
		if editable {
			b.Enable()
		} else {
			b.Disable()
		}
	}
	if st == nil {
		p.rows.Add(widget.NewLabel("(no stack)"))
		return
	}
	if len(st.Layers) >= stack.MaxLayers {
		p.add.Disable()
		p.dup.Disable()
	}
	for i := len(st.Layers) - 1; i >= 0; i-- {
		r := newLayerRow(p, i, &st.Layers[i], i == p.ed.selLayer)
		p.list = append(p.list, r)
		p.rows.Add(r)
	}
	p.rows.Refresh()
}

func (p *layersPanel) selected() int { return p.ed.selLayer }

func (p *layersPanel) addLayer() {
	var idx int
	p.ed.edit("Add layer", func(st *stack.Stack) error {
		l := stack.NewLayer(st.UniqueLayerName("layer"))
		l.Tint = nextTint(len(st.Layers))
		idx = len(st.Layers)
		return st.AddLayer(l)
	})
	p.ed.selLayer = idx
	p.ed.refresh()
}

func (p *layersPanel) duplicate() {
	i := p.selected()
	if p.ed.edit("Duplicate layer", func(st *stack.Stack) error { return st.DuplicateLayer(i) }) == nil {
		p.ed.selLayer = i + 1
		p.ed.refresh()
	}
}

func (p *layersPanel) remove() {
	i := p.selected()
	if p.ed.edit("Delete layer", func(st *stack.Stack) error { return st.RemoveLayer(i) }) == nil {
		p.ed.selLayer = max(0, i-1)
		p.ed.refresh()
	}
}

// move moves the selected layer by d positions (+1 up the stack).
func (p *layersPanel) move(d int) {
	i := p.selected()
	p.moveTo(i, i+d)
}

func (p *layersPanel) moveTo(from, to int) {
	st := p.ed.s.Stack()
	if st == nil || from == to || to < 0 || to >= len(st.Layers) {
		return
	}
	if p.ed.edit(fmt.Sprintf("Move layer %s", st.Layers[from].Name), func(st *stack.Stack) error { return st.MoveLayer(from, to) }) == nil {
		p.ed.selLayer = to
		p.ed.refresh()
	}
}

// layerRow is one layer: a grip to drag it, its tint, name and strength.
type layerRow struct {
	widget.BaseWidget
	p        *layersPanel
	index    int
	selected bool
	box      *fyne.Container
	grip     *gripHandle
}

func newLayerRow(p *layersPanel, i int, l *stack.Layer, selected bool) *layerRow {
	r := &layerRow{p: p, index: i, selected: selected}
	swatch := canvas.NewRectangle(color.NRGBA{l.Tint[0], l.Tint[1], l.Tint[2], 255})
	swatch.SetMinSize(fyne.NewSize(22, 22))
	swatch.StrokeColor = theme.Color(theme.ColorNameForeground)
	swatch.StrokeWidth = 1
	name := widget.NewLabel(l.Name)
	if i == 0 {
		name.SetText(l.Name + "  (ground)")
	}
	info := fmt.Sprintf("%d rules", len(l.Rules))
	if len(l.Rules) == 1 {
		info = "1 rule"
	}
	if l.Strength != 1 {
		info += fmt.Sprintf(", %.0f%%", 100*l.Strength)
	}
	if l.Albedo != "" {
		info += ", textured"
	}
	detail := widget.NewLabel(info)
	detail.Importance = widget.LowImportance
	r.grip = newGrip(r)
	bg := canvas.NewRectangle(color.Transparent)
	if selected {
		bg.FillColor = theme.Color(theme.ColorNameSelection)
	}
	r.box = container.NewStack(bg, container.NewBorder(nil, nil, container.NewHBox(r.grip, swatch, name), detail))
	r.ExtendBaseWidget(r)
	return r
}

func (r *layerRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.box) }

// Tapped selects the layer.
func (r *layerRow) Tapped(*fyne.PointEvent) {
	r.p.ed.selLayer = r.index
	r.p.ed.refresh()
}

// gripHandle drags its row to a new place in the stack.
type gripHandle struct {
	widget.Icon
	row *layerRow
	dy  float32
	tip
}

func newGrip(r *layerRow) *gripHandle {
	g := &gripHandle{row: r}
	g.Resource = icons.Grip
	g.tip.text, g.tip.owner = "Drag to move this layer up or down the stack.", g
	g.ExtendBaseWidget(g)
	return g
}

func (g *gripHandle) Cursor() desktop.Cursor           { return desktop.VResizeCursor }
func (g *gripHandle) MouseIn(e *desktop.MouseEvent)    { g.tip.in(e) }
func (g *gripHandle) MouseMoved(e *desktop.MouseEvent) { g.tip.moved(e) }
func (g *gripHandle) MouseOut()                        { g.tip.out() }

// Dragged shows where the row would land.
func (g *gripHandle) Dragged(e *fyne.DragEvent) {
	g.tip.out()
	g.dy += e.Dragged.DY
	p := g.row.p
	steps := g.steps()
	pos := g.row.Position()
	h := g.row.Size().Height
	// A line above the row it would pass going up, below it going down.
	y := pos.Y - float32(steps)*h
	if steps < 0 {
		y += h
	}
	p.marker.Move(fyne.NewPos(0, y-1))
	p.marker.Resize(fyne.NewSize(p.rows.Size().Width, 3))
	p.marker.Show()
	p.marker.Refresh()
}

// steps is how many rows the drag moved the layer up the stack (up the screen).
func (g *gripHandle) steps() int {
	h := g.row.Size().Height
	if h <= 0 {
		return 0
	}
	return int(math.Round(float64(-g.dy / h)))
}

// DragEnd moves the layer.
func (g *gripHandle) DragEnd() {
	p := g.row.p
	p.marker.Hide()
	steps := g.steps()
	g.dy = 0
	st := p.ed.s.Stack()
	if st == nil || steps == 0 {
		return
	}
	to := min(max(g.row.index+steps, 0), len(st.Layers)-1)
	p.moveTo(g.row.index, to)
}

var (
	_ fyne.Draggable     = (*gripHandle)(nil)
	_ desktop.Cursorable = (*gripHandle)(nil)
	_ fyne.Tappable      = (*layerRow)(nil)
)

// tints are the colours new layers start with, so each reads as a distinct surface at once.
var tints = []stack.Color{
	{0xd8, 0xc0, 0x8a}, {0x7a, 0x6e, 0x64}, {0x4a, 0x7a, 0x2e}, {0xf2, 0xf4, 0xf8},
	{0x6b, 0x4f, 0x36}, {0x3f, 0x5a, 0x2a}, {0x9a, 0x96, 0x8c}, {0xb0, 0x6a, 0x45},
}

func nextTint(i int) stack.Color { return tints[i%len(tints)] }
